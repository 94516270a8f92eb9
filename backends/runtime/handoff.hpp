// Completions that another thread hands to the event loop: the half of a progress-thread
// design (UCXX's) that the loop sees.
//
// A progress thread drives the library and finds requests complete; the coroutines waiting
// for them belong to the loop, whose ready queue is not thread-safe. So the thread posts a
// HandoffNode (it lives in the waiter's frame: no allocation) onto a lock-free
// multi-producer stack, and the loop, which registers the Handoff as a poller, takes the
// whole stack each turn and schedules the waiters in posting order.
//
// Waking is paid only when it is needed: while the loop turns (or spins) it sees the
// stack on its next poll; only an armed loop, about to block in epoll, has asked to be
// woken, and then the first post after arming writes the eventfd. The two sides form a
// Dekker pair (the loop stores `sleeping_` then loads the stack; the producer pushes then
// loads `sleeping_`, all sequentially consistent), so either the loop sees the node before
// it sleeps or the producer sees the flag and wakes it; never neither.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstddef>

#include "runtime/mpsc_stack.hpp"
#include "runtime/poller.hpp"

namespace commbench {

class EventLoop;

struct HandoffNode {
  std::coroutine_handle<> handle;
  HandoffNode* next = nullptr;
};

struct HandoffStats {
  uint64_t handed = 0;  // nodes the loop took from other threads
  uint64_t wakes = 0;   // eventfd writes (posts that found the loop armed)
};

class Handoff final : public Poller {
 public:
  // Registers itself with `loop` as a poller named `name` (a static string).
  Handoff(EventLoop& loop, const char* name);
  ~Handoff() override;
  Handoff(const Handoff&) = delete;
  Handoff& operator=(const Handoff&) = delete;

  // Any thread: hands `n` (its handle set) to the loop.
  void post(HandoffNode* n) noexcept;

  // Loop thread: a waiter is about to suspend until someone posts it, or no longer
  // waits. While any are expected the loop polls this every turn; otherwise it may
  // sleep without asking (nothing can arrive).
  void expect() noexcept { ++expected_; }
  void unexpect() noexcept { --expected_; }
  size_t expected() const noexcept { return expected_; }

  // Any thread: true while something posted has not been taken yet.
  bool pending() const noexcept { return !posted_.empty(); }

  // Loop thread: schedules everything posted so far; the number of nodes taken. A node
  // equal to `skip` is dropped instead (its coroutine is being destroyed; see mpi's
  // ThreadProgress::reclaim_now).
  size_t take(const HandoffNode* skip = nullptr);

  HandoffStats stats() const noexcept { return {handed_, wakes_.load(std::memory_order_relaxed)}; }

  // Poller.
  const char* name() const noexcept override { return name_; }
  bool has_work() const noexcept override { return expected_ > 0 || !posted_.empty(); }
  bool poll() override { return take() != 0; }
  ArmResult try_arm() override;
  void disarm() override { sleeping_.store(false, std::memory_order_relaxed); }
  int wake_fd() const noexcept override { return efd_; }
  // While a waiter is expected the loop sleeps as soon as it has nothing to do: the
  // progress thread is the one that spins. A loop that also spun would be a second busy
  // thread per rank; on 2 cores, two ranks' four spinners made every 1 B ping-pong wait
  // for a time slice (p50 2 ms, against 32 us with the loop asleep).
  bool arm_at_once() const noexcept override { return sleep_while_expecting_ && expected_ > 0; }
  // false: the loop spins its usual budget first, as for any poller (a machine with a
  // core to spare per thread; inproc_bench measures both).
  void set_sleep_while_expecting(bool on) noexcept { sleep_while_expecting_ = on; }
  void on_wake() noexcept override;

 private:
  EventLoop& loop_;
  const char* name_;
  int efd_ = -1;
  MpscStack<HandoffNode> posted_;
  std::atomic<bool> sleeping_{false};
  std::atomic<uint64_t> wakes_{0};
  size_t expected_ = 0;
  bool sleep_while_expecting_ = true;
  uint64_t handed_ = 0;
};

}  // namespace commbench
