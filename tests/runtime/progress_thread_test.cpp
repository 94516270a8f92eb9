// The ProgressThread's polling variant (runtime/progress_thread.hpp): with an `idle` hook
// it stops stepping once nothing is in flight, and wake() after new work always restarts
// it (the Dekker pair between park() and wake(): a lost wake-up would leave the work
// untaken, which the deadline below turns into a failure, not a hang). Threads meet here,
// so the tsan preset runs these too.
#include "runtime/progress_thread.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace commbench;
using namespace std::chrono_literals;

namespace {

// Work the test hands the thread: a counter it publishes before wake() and the thread
// takes to zero in a step.
struct Work {
  std::atomic<int> pending{0};
  std::atomic<long> steps{0};
  std::atomic<long> taken{0};

  ProgressThread::Hooks hooks(bool with_idle) {
    ProgressThread::Hooks h;
    h.step = [this] {
      steps.fetch_add(1, std::memory_order_relaxed);
      int n = pending.exchange(0, std::memory_order_acq_rel);
      taken.fetch_add(n, std::memory_order_relaxed);
      return n != 0;
    };
    if (with_idle) h.idle = [this] { return pending.load(std::memory_order_seq_cst) == 0; };
    return h;
  }
};

// Steps taken over `d`, once the thread has had time to settle.
long steps_during(Work& w, std::chrono::milliseconds d) {
  long before = w.steps.load();
  std::this_thread::sleep_for(d);
  return w.steps.load() - before;
}

bool wait_taken(Work& w, long want, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (w.taken.load() < want)
    if (std::chrono::steady_clock::now() > until) return false;
  return true;
}

}  // namespace

TEST(ProgressThread, PollingThreadWithIdleHookStopsSteppingWhenNothingIsInFlight) {
  Work w;
  ProgressThread t("test-park", w.hooks(true), std::chrono::microseconds(50));
  std::this_thread::sleep_for(20ms);
  // Parked: no step at all in 50 ms (a polling thread takes ~10^5 per ms).
  EXPECT_EQ(steps_during(w, 50ms), 0);
}

TEST(ProgressThread, PollingThreadWithoutIdleHookKeepsStepping) {
  Work w;
  ProgressThread t("test-poll", w.hooks(false), std::chrono::microseconds(50));
  std::this_thread::sleep_for(20ms);
  EXPECT_GT(steps_during(w, 50ms), 0);
}

TEST(ProgressThread, WakeAfterPublishingWorkNeverLosesIt) {
  Work w;
  ProgressThread t("test-wake", w.hooks(true), std::chrono::microseconds(1));
  // Each round publishes one unit and wakes; the thread parks again between rounds
  // whenever it sees nothing (1 us of idleness), so rounds race park() against wake().
  for (long i = 1; i <= 2000; ++i) {
    w.pending.fetch_add(1, std::memory_order_seq_cst);
    t.wake();
    ASSERT_TRUE(wait_taken(w, i, 2000ms)) << "round " << i << ": the thread never took its work";
    if (i % 100 == 0) std::this_thread::sleep_for(200us);  // let it park for real
  }
}

TEST(ProgressThread, StopReturnsWhileParked) {
  Work w;
  ProgressThread t("test-stop", w.hooks(true), std::chrono::microseconds(50));
  std::this_thread::sleep_for(20ms);
  auto t0 = std::chrono::steady_clock::now();
  t.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}
