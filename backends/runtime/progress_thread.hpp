// A dedicated thread that drives a communication library (UCXX's progress thread), in the
// two variants UCXX offers:
//   polling   `step` runs back to back; after `yield_after` without progress every 64th
//             empty step also yields the core, so an idle thread does not starve the ranks it
//             shares a core with (2 cores, 2 ranks, 2 progress threads here). With an
//             `idle` hook it parks once it has been idle that long with nothing in flight,
//             until wake(): see Hooks::idle.
//   blocking  `step` runs until it finds nothing, then `sleep(stop_fd)` blocks until the
//             library's descriptor or `stop_fd` is readable (the caller arms the library
//             first and returns at once when arming says events are pending).
// Completions reach the event loop through a Handoff (handoff.hpp); this class only owns
// the thread and stops it: stop() wakes a sleeping thread through `stop_fd` and joins.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace commbench {

class ProgressThread {
 public:
  struct Hooks {
    std::function<bool()> step;              // one progress call; true if it did something
    std::function<void(int stop_fd)> sleep;  // empty = the polling variant
    // Polling variant: true while the loop has not yet taken what this thread handed it.
    // An empty step then yields the core at once: the loop must run to post the next
    // request, and on a full machine (2 cores: two ranks' spinning threads) it waited
    // for a time slice otherwise (1 B ping-pong p50 8 ms).
    std::function<bool()> owed;
    // Polling variant, optional: true when this thread holds nothing in flight and no
    // request waits to be taken. After `yield_after` of that, the thread parks (a futex
    // wait) until wake(). A thread that only yielded kept two more runnable threads on
    // a full machine, and every other measurement in the process paid for it: MPICH,
    // ping-pong of mpi:batched, mpi:blocking, mpi:thread and raw-mpi with
    // --inject-delay 100, raw-mpi 1 B p50 4 ms (a time slice per round trip) in 5 of 30
    // rounds, 0 of 30 once it parks (results/thread-fixes-2026-11-27). Inside a policy's
    // own run something is always in flight but for microseconds, so it never parks
    // there.
    std::function<bool()> idle;
  };
  ProgressThread(std::string name, Hooks hooks,
                 std::chrono::nanoseconds yield_after = std::chrono::microseconds(50));
  ~ProgressThread() { stop(); }
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  // Idempotent; after it returns the hooks are never called again.
  void stop();
  // Any thread, after making work visible to `idle` with a sequentially consistent
  // store or read-modify-write (MpscStack::push): wakes a parked thread. A load when it is
  // not parked. No fences: every access of the pair is seq_cst, which orders it (and TSan
  // does not model fences).
  void wake() noexcept {
    if (parked_.load(std::memory_order_seq_cst)) {
      parked_.store(false, std::memory_order_seq_cst);
      parked_.notify_one();
    }
  }
  // True while the blocking variant sleeps or is about to (see UCX's signal on post).
  bool asleep() const noexcept { return asleep_.load(std::memory_order_seq_cst); }

 private:
  void run();
  // Parks until wake() or stop() if `idle` still holds once `parked_` is set; false
  // (without waiting) if work arrived meanwhile.
  bool park();
  std::string name_;
  Hooks hooks_;
  std::chrono::nanoseconds yield_after_;
  int stop_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> asleep_{false};
  std::atomic<bool> parked_{false};  // polling variant with `idle`: parked or about to
  std::thread thread_;
};

}  // namespace commbench
