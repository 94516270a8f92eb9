#include "runtime/event_loop.hpp"

#include <sched.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace commbench {

namespace {
// epoll user data of a poller's wake fd: a marker, the poller is polled after waking.
constexpr uint64_t kWakeTag = 1ull << 63;
}  // namespace

std::chrono::nanoseconds default_spin_yield_after() {
  long local = 0;
  // The launcher counts ranks per host name; COMMBENCH_MACHINE_RANKS (the harness's count
  // per kernel, harness/machine_ranks.hpp) also sees virtual hosts sharing these CPUs.
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "COMMBENCH_MACHINE_RANKS"})
    if (const char* s = std::getenv(v)) local = std::max(local, std::atol(s));
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (local > 0 && cpus > 0 && local > cpus) return std::chrono::microseconds(2);
  return std::chrono::nanoseconds::max();
}

void EventLoop::retry_found_nothing() {
  const uint64_t now = now_ns();
  if (fruitless_since_ns_ == 0) fruitless_since_ns_ = now;
  if (now - fruitless_since_ns_ >= static_cast<uint64_t>(options_.spin_yield_after.count())) {
    sched_yield();
    ++stats_.retry_yields;
  }
}

uint64_t EventLoop::now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

EventLoop::EventLoop(LoopOptions options) : options_(options) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw std::runtime_error(std::string("epoll_create1: ") + strerror(errno));
}

EventLoop::~EventLoop() {
  // Coroutines already made ready (typically waits just cancelled by a listener's stop())
  // get their last turn, so they unwind and free their frames instead of leaking.
  for (int round = 0; round < 16 && !ready_.empty(); ++round)
    for (size_t n = ready_.size(); n > 0; --n) ready_.pop().resume();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void EventLoop::report_error(std::exception_ptr e) {
  ++detached_errors_;
  if (error_handler_) {
    error_handler_(e);
    return;
  }
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "commbench: detached task failed: %s\n", ex.what());
  } catch (...) {
    std::fprintf(stderr, "commbench: detached task failed with a non-standard exception\n");
  }
}

// --- pollers -------------------------------------------------------------------------

void EventLoop::add_poller(Poller* p) {
  pollers_.push_back(p);
  int fd = p->wake_fd();
  if (fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = kWakeTag | static_cast<uint64_t>(fd);
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
      throw std::runtime_error(std::string("epoll_ctl(wake fd): ") + strerror(errno));
  }
}

void EventLoop::remove_poller(Poller* p) {
  pollers_.erase(std::remove(pollers_.begin(), pollers_.end(), p), pollers_.end());
  int fd = p->wake_fd();
  if (fd >= 0) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

// --- descriptors -----------------------------------------------------------------------

EventLoop::FdSlot& EventLoop::slot(int fd) {
  if (fd < 0) throw std::invalid_argument("negative file descriptor");
  if (static_cast<size_t>(fd) >= fds_.size()) fds_.resize(static_cast<size_t>(fd) + 1);
  return fds_[static_cast<size_t>(fd)];
}

void EventLoop::watch_fd(int fd) {
  FdSlot& s = slot(fd);
  if (s.watched) return;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.u64 = static_cast<uint64_t>(fd);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw std::runtime_error(std::string("epoll_ctl(add): ") + strerror(errno));
  s.watched = true;
}

void EventLoop::unwatch_fd(int fd) {
  if (fd < 0 || static_cast<size_t>(fd) >= fds_.size()) return;
  FdSlot& s = fds_[static_cast<size_t>(fd)];
  if (!s.watched) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  s.watched = false;
  wake(s.reader, EPOLLHUP);
  wake(s.writer, EPOLLHUP);
}

void EventLoop::wake(FdWait*& waiter, uint32_t events) {
  if (!waiter) return;
  FdWait* w = waiter;
  waiter = nullptr;
  forget(w);
  if (w->token_.can_be_cancelled()) w->token_.state()->remove(&w->reg_);
  w->events_ = events;
  schedule(w->handle_);
}

void EventLoop::forget(FdWait* w) noexcept {
  --fd_waiters_;
  if (w->lazy_) --lazy_waiters_;
  if (probing_ == w) probing_ = nullptr;
}

void FdWait::await_suspend(std::coroutine_handle<> h) {
  handle_ = h;
  auto& s = loop_.slot(fd_);
  if (!s.watched) throw std::logic_error("wait on an fd that is not watched");
  FdWait*& place = for_write_ ? s.writer : s.reader;
  if (place) throw std::logic_error("two coroutines wait on the same fd direction");
  place = this;
  ++loop_.fd_waiters_;
  if (lazy_) ++loop_.lazy_waiters_;
  if (probe_ && !loop_.probing_) loop_.probing_ = this;
  token_.watch(reg_, &FdWait::cancel_cb, this);
}

void FdWait::cancel_cb(CancelRegistration* r) {
  auto* self = static_cast<FdWait*>(r->owner);
  auto& s = self->loop_.slot(self->fd_);
  FdWait*& place = self->for_write_ ? s.writer : s.reader;
  if (place == self) {
    place = nullptr;
    self->loop_.forget(self);
  }
  self->resume_cancelled(self->loop_);
}

uint32_t FdWait::await_resume() {
  throw_if_cancelled("wait on descriptor");
  return events_;
}

void CancellableWait::resume_cancelled(EventLoop& loop) {
  cancelled_ = true;
  timed_out_ = token_.state()->by_timeout();
  loop.schedule(handle_);
}

// --- timers --------------------------------------------------------------------------

void SleepUntil::await_suspend(std::coroutine_handle<> h) {
  handle_ = h;
  timer_.fire = &SleepUntil::fire_cb;
  timer_.owner = this;
  loop_.add_timer(&timer_, deadline_ns_);
  token_.watch(reg_, &SleepUntil::cancel_cb, this);
}

void SleepUntil::fire_cb(TimerNode* n) {
  auto* self = static_cast<SleepUntil*>(n->owner);
  if (self->token_.can_be_cancelled()) self->token_.state()->remove(&self->reg_);
  self->loop_.schedule(self->handle_);
}

void SleepUntil::cancel_cb(CancelRegistration* r) {
  auto* self = static_cast<SleepUntil*>(r->owner);
  self->loop_.cancel_timer(&self->timer_);
  self->resume_cancelled(self->loop_);
}

void SleepUntil::await_resume() {
  throw_if_cancelled("sleep");
}

bool EventLoop::fire_timers(uint64_t now) {
  if (timers_.empty()) return false;
  bool fired = false;
  while (TimerNode* n = timers_.pop_expired(now)) {
    n->fire(n);
    fired = true;
  }
  return fired;
}

// --- the loop ------------------------------------------------------------------------

bool EventLoop::poll_epoll(int64_t timeout_ns) {
  epoll_event events[64];
  timespec ts{};
  timespec* tsp = nullptr;
  if (timeout_ns >= 0) {
    ts.tv_sec = timeout_ns / 1'000'000'000;
    ts.tv_nsec = timeout_ns % 1'000'000'000;
    tsp = &ts;
  }
  // epoll_pwait2 (Linux 5.11) takes nanoseconds, which the short naps of MPI polling
  // need. Older kernels, and valgrind (3.19 does not know the call), answer ENOSYS: from
  // then on this loop uses epoll_wait with the timeout rounded up to whole milliseconds.
  int n = -1;
  if (have_pwait2_) {
    n = epoll_pwait2(epoll_fd_, events, 64, tsp, nullptr);
    if (n < 0 && errno == ENOSYS) have_pwait2_ = false;
  }
  if (!have_pwait2_) {
    int ms = timeout_ns < 0 ? -1 : static_cast<int>((timeout_ns + 999'999) / 1'000'000);
    n = epoll_wait(epoll_fd_, events, 64, ms);
  }
  if (n < 0) {
    if (errno == EINTR) return false;
    throw std::runtime_error(std::string(have_pwait2_ ? "epoll_pwait2: " : "epoll_wait: ") +
                             strerror(errno));
  }
  bool woke = false;
  for (int i = 0; i < n; ++i) {
    uint64_t data = events[i].data.u64;
    if (data & kWakeTag) {
      woke = true;  // a poller's event fd: the poller runs in the next turn
      int wfd = static_cast<int>(data & ~kWakeTag);
      for (Poller* p : pollers_)
        if (p->wake_fd() == wfd) p->on_wake();
      continue;
    }
    int fd = static_cast<int>(data);
    if (static_cast<size_t>(fd) >= fds_.size()) continue;
    FdSlot& s = fds_[static_cast<size_t>(fd)];
    uint32_t ev = events[i].events;
    constexpr uint32_t kBroken = EPOLLHUP | EPOLLERR;
    // A reader with a probe wakes with its result: the loop makes its attempt on epoll's
    // word (the recv the reader would make next), and wakes it when that finishes or on a
    // hang-up.
    if (s.reader && (ev & (EPOLLIN | EPOLLRDHUP | kBroken)) &&
        ((ev & kBroken) || s.reader->attempt())) {
      wake(s.reader, ev);
      woke = true;
    }
    if (s.writer && (ev & (EPOLLOUT | kBroken))) {
      wake(s.writer, ev);
      woke = true;
    }
  }
  return woke;
}

bool EventLoop::peek_epoll() {
  ++stats_.peeks;
  return poll_epoll(0);
}

bool EventLoop::run_probe() {
  FdWait* w = probing_;
  ++stats_.probes;
  if (!w->attempt()) return false;
  wake(fds_[static_cast<size_t>(w->fd_)].reader, EPOLLIN);
  return true;
}

bool EventLoop::turn() {
  ++stats_.turns;
  bool worked = false;
  // Only what was ready when the turn began: a coroutine that re-queues itself every
  // turn (cooperative polling) must not starve pollers, timers and descriptors.
  for (size_t n = ready_.size(); n > 0; --n) {
    ready_.pop().resume();
    worked = true;
  }
  for (Poller* p : pollers_)
    if (p->has_work() && p->poll()) worked = true;
  // clock_gettime costs ~50 ns on a VM (kvm-clock), a quarter of a spin turn of an MPI
  // poll: consecutive turns look at the timers every 8th turn only (a timer fires at most
  // 7 turns late, still never early), and always on the first turn after a sleep.
  if (!timers_.empty() && ((++timer_tick_ & 7) == 0 || check_timers_now_)) {
    check_timers_now_ = false;
    if (fire_timers(now_ns())) worked = true;
  }
  // Descriptors: a reader with a probe that is the only prompt waiter makes its own
  // attempt, lazy waits (incoming()) get an epoll peek every 8th turn; otherwise every
  // turn peeks at epoll for all waiters.
  if (probing_ && fd_waiters_ - lazy_waiters_ == 1) {
    if (run_probe()) worked = true;
    if (lazy_waiters_ > 0 && (stats_.turns & 7) == 0 && peek_epoll()) worked = true;
  } else if (fd_waiters_ > 0 && peek_epoll()) {
    worked = true;
  }
  return worked;
}

bool EventLoop::settle_detached(std::chrono::nanoseconds limit) {
  const uint64_t deadline = now_ns() + static_cast<uint64_t>(limit.count());
  while (live_detached_ > 0 && now_ns() < deadline) run_for(std::chrono::milliseconds(1));
  return live_detached_ == 0;
}

void EventLoop::run_once() {
  if (turn() || !ready_.empty()) {
    idle_since_ns_ = 0;
    nap_ns_ = 0;
    spinning_ = false;
    return;
  }
  idle();
}

void EventLoop::idle() {
  // While spinning, the budget is checked every 8th idle turn only (same clock cost as in
  // turn()); the spin then lasts at most 7 turns longer than the budget.
  if (spinning_ && (++idle_tick_ & 7) != 0) {
    if (spin_yielding_) sched_yield();
    return;
  }
  uint64_t now = now_ns();
  // Timers first, as when turn() looked at them every turn: a deadline that passed
  // while turns skipped the clock is work, not idleness.
  if (fire_timers(now)) {
    idle_since_ns_ = 0;
    spinning_ = false;
    return;
  }
  if (idle_since_ns_ == 0) idle_since_ns_ = now;
  bool at_once = false;
  for (Poller* p : pollers_) at_once = at_once || p->arm_at_once();
  uint64_t idle_for = now - idle_since_ns_;
  if (!at_once && idle_for < static_cast<uint64_t>(options_.spin_budget.count())) {
    // Past the first microseconds, spin politely: when the peer we wait for shares our
    // core (unpinned or oversubscribed ranks), a pure spin would hold the core for the
    // whole budget before the peer can even send the reply.
    spinning_ = true;
    spin_yielding_ = idle_for >= static_cast<uint64_t>(options_.spin_yield_after.count());
    if (spin_yielding_) sched_yield();
    return;
  }
  spinning_ = false;

  // Arm every poller; one with events pending cancels the sleep (Seastar's protocol).
  bool nap = false;
  size_t armed = 0;
  bool busy = false;
  for (; armed < pollers_.size(); ++armed) {
    Poller* p = pollers_[armed];
    ArmResult r = p->has_work() || p->wake_fd() >= 0 ? p->try_arm() : ArmResult::armed;
    if (r == ArmResult::busy) {
      busy = true;
      break;
    }
    if (r == ArmResult::cannot_arm) nap = true;
  }
  auto disarm_all = [&] {
    for (size_t i = 0; i < armed; ++i) pollers_[i]->disarm();
  };
  if (busy) {
    disarm_all();
    return;
  }

  int64_t timeout = -1;
  if (!timers_.empty()) {
    uint64_t next = timers_.next_deadline();
    timeout = next > now ? static_cast<int64_t>(next - now) : 0;
  }
  if (nap) {
    nap_ns_ = nap_ns_ == 0 ? static_cast<uint64_t>(options_.min_nap.count())
                           : std::min<uint64_t>(nap_ns_ * 2, options_.max_nap.count());
    timeout = timeout < 0 ? static_cast<int64_t>(nap_ns_)
                          : std::min<int64_t>(timeout, static_cast<int64_t>(nap_ns_));
    ++stats_.naps;
  } else {
    ++stats_.blocks;
  }
  uint64_t before = now_ns();
  poll_epoll(timeout);
  stats_.slept_ns += now_ns() - before;
  check_timers_now_ = true;  // the sleep may have passed a deadline
  disarm_all();
  // After a real block, spin again before the next one: a reply usually follows soon.
  // (Also after a block that woke nobody: without that spin, ucx:cooperative's 512 KiB
  // round trips took 8x longer in the VM's slow rounds, results/ab-tcp-probe/README.md.)
  if (!nap) idle_since_ns_ = 0;
}

}  // namespace commbench
