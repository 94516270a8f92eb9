#include "runtime/progress_thread.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "runtime/event_loop.hpp"

namespace commbench {

ProgressThread::ProgressThread(std::string name, Hooks hooks, std::chrono::nanoseconds yield_after)
    : name_(std::move(name)), hooks_(std::move(hooks)), yield_after_(yield_after) {
  stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  thread_ = std::thread([this] { run(); });
  // Named so `top -H` and a profiler show whose thread burns the core (15 chars max).
  pthread_setname_np(thread_.native_handle(), name_.substr(0, 15).c_str());
}

void ProgressThread::stop() {
  if (!thread_.joinable()) return;
  stopping_.store(true, std::memory_order_seq_cst);
  parked_.store(false, std::memory_order_seq_cst);
  parked_.notify_one();
  uint64_t one = 1;
  ssize_t w = ::write(stop_fd_, &one, sizeof one);
  (void)w;
  thread_.join();
  ::close(stop_fd_);
  stop_fd_ = -1;
}

void ProgressThread::run() {
  const uint64_t yield_after = static_cast<uint64_t>(yield_after_.count());
  uint64_t idle_since = 0;
  unsigned idle_steps = 0;
  while (!stopping_.load(std::memory_order_relaxed)) {
    if (hooks_.step()) {
      idle_since = 0;
      idle_steps = 0;
      continue;
    }
    if (hooks_.sleep) {
      asleep_.store(true, std::memory_order_seq_cst);
      if (!stopping_.load(std::memory_order_seq_cst)) hooks_.sleep(stop_fd_);
      asleep_.store(false, std::memory_order_relaxed);
      continue;
    }
    if (hooks_.owed && hooks_.owed()) {
      sched_yield();
      continue;
    }
    // The clock is read every 64th empty step only: a step is ~100 ns.
    if ((++idle_steps & 63) != 0) continue;
    uint64_t now = EventLoop::now_ns();
    if (idle_since == 0) idle_since = now;
    if (now - idle_since < yield_after) continue;
    if (hooks_.idle && park()) {
      idle_since = 0;
      continue;
    }
    sched_yield();
  }
}

bool ProgressThread::park() {
  // A Dekker pair with wake(): we store `parked_` and then look for work; the waker
  // publishes work and then loads `parked_`. All four accesses are seq_cst (`idle` loads
  // with seq_cst), so one of the two sides sees the other.
  parked_.store(true, std::memory_order_seq_cst);
  if (!hooks_.idle() || stopping_.load(std::memory_order_seq_cst)) {
    parked_.store(false, std::memory_order_relaxed);
    return false;
  }
  parked_.wait(true, std::memory_order_seq_cst);
  return true;
}

}  // namespace commbench
