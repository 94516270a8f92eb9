// The application metrics (appbench/run_metrics.hpp): comm_s is wall-clock time with a
// transfer in flight, so overlapping transfers count once and it never exceeds the run;
// transfer_s keeps the plain sum; wait_s runs only while the worker is idle and a task
// waits for inputs (distributed/wait_clock.hpp).
#include "run_metrics.hpp"

#include <gtest/gtest.h>

#include "distributed/wait_clock.hpp"

using namespace commbench::app;

namespace {

TransferRecord transfer(uint64_t start_ns, uint64_t duration_ns, uint64_t bytes = 100) {
  return TransferRecord{0, 1, "k", bytes, start_ns, duration_ns};
}

WorkerStats worker(int index, std::vector<TransferRecord> t, uint64_t wait_ns = 0) {
  WorkerStats w;
  w.worker = index;
  w.wait_ns = wait_ns;
  w.transfers = std::move(t);
  return w;
}

TEST(UnionNs, CountsOverlapsOnce) {
  EXPECT_EQ(union_ns({}), 0u);
  EXPECT_EQ(union_ns({{0, 10}, {5, 10}}), 15u);              // overlapping
  EXPECT_EQ(union_ns({{20, 5}, {0, 10}}), 15u);              // disjoint, unsorted
  EXPECT_EQ(union_ns({{0, 100}, {10, 5}, {50, 10}}), 100u);  // nested
  EXPECT_EQ(union_ns({{0, 10}, {10, 10}}), 20u);             // touching
  EXPECT_EQ(union_ns({{0, 0}, {5, 0}}), 0u);                 // empty intervals
}

// The defect this replaced: four fetches in flight at once over a 0.1 s run summed to
// 0.4 s of "communication time".
TEST(RunMetrics, CommTimeOfOverlappingTransfersFitsInTheRun) {
  const double wall_s = 0.1;
  std::vector<WorkerStats> stats = {
      worker(-1, {}),  // the scheduler
      worker(0, {transfer(0, 100'000'000), transfer(0, 100'000'000), transfer(0, 100'000'000),
                 transfer(0, 100'000'000)}),
      worker(1, {transfer(10'000'000, 50'000'000), transfer(40'000'000, 50'000'000)}),
  };
  RunMetrics m = compute_run_metrics(stats, 2);
  EXPECT_LE(m.comm_s, wall_s);
  EXPECT_LE(m.comm_s_max_worker, wall_s);
  EXPECT_DOUBLE_EQ(m.comm_s_max_worker, 0.1);    // worker 0: [0, 0.1)
  EXPECT_DOUBLE_EQ(m.comm_s, (0.1 + 0.08) / 2);  // worker 1: [0.01, 0.09)
  EXPECT_DOUBLE_EQ(m.transfer_s, 0.4 + 0.1);     // the sum, overlaps counted
  EXPECT_EQ(m.bytes, 600u);
}

TEST(RunMetrics, WorkersWithoutTransfersCountInTheMeans) {
  std::vector<WorkerStats> stats = {worker(0, {transfer(0, 1'000'000'000)}, 400'000'000),
                                    worker(1, {}, 0)};
  RunMetrics m = compute_run_metrics(stats, 2);
  EXPECT_DOUBLE_EQ(m.comm_s, 0.5);
  EXPECT_DOUBLE_EQ(m.comm_s_max_worker, 1.0);
  EXPECT_DOUBLE_EQ(m.wait_s, 0.2);
  EXPECT_DOUBLE_EQ(m.wait_s_max_worker, 0.4);
}

TEST(WaitClock, RunsOnlyWhileIdleAndBlocked) {
  WaitClock c;
  c.block(0);             // a task waits for data, but the executor is busy
  c.set_idle(true, 10);   // now it is idle: waiting from 10
  c.set_idle(false, 25);  // woken (another task became ready): 15 ns
  c.set_idle(true, 30);   // idle again, still blocked: from 30
  c.unblock(45);          // the inputs arrived: 15 ns
  c.set_idle(true, 50);   // idle with nothing held back: not waiting
  EXPECT_EQ(c.take(100), 30u);
  EXPECT_EQ(c.take(200), 0u);  // take resets
}

TEST(WaitClock, AWaitInProgressCountsUpToTheTake) {
  WaitClock c;
  c.set_idle(true, 0);
  c.block(10);
  EXPECT_EQ(c.take(40), 30u);
  EXPECT_EQ(c.take(45), 5u);  // still waiting: continues from the last take
  c.unblock(50);
  c.unblock(60);  // more unblocks than blocks never underflow
  EXPECT_EQ(c.take(100), 5u);
}

}  // namespace
