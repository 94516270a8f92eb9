// What one application run measured, from every worker's counters: the communication
// metrics the CSV reports. Kept apart from AppSession so that tests can feed it
// hand-made transfers (overlapping ones above all) without a cluster.
//
// Why a union and not a sum: a worker fetches several inputs at once and computes while
// they move, so its transfers overlap each other and its compute. Summing their
// durations counted the same wall-clock second several times (2.6 s of "communication"
// in a 0.39 s run); the union is the time during which at least one was in flight, which
// can never exceed the run.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "distributed/protocol.hpp"

namespace commbench::app {

struct RunMetrics {
  double comm_s = 0;             // mean over workers of the union of their transfers' intervals
  double comm_s_max_worker = 0;  // the largest such union
  double transfer_s = 0;         // the plain sum of every transfer's duration (overlaps counted)
  double wait_s = 0;             // mean over workers: idle with a task held back by missing data
  double wait_s_max_worker = 0;  // the largest such wait (the critical path's share)
  unsigned long long bytes = 0;  // bytes moved worker to worker
  uint64_t worker_cpu_ns = 0;    // the busiest worker process's CPU time
  uint64_t scheduler_cpu_ns = 0;
};

// Length of the union of [start, start + duration) intervals, in nanoseconds.
uint64_t union_ns(std::vector<std::pair<uint64_t, uint64_t>> start_and_duration);

// `stats` as Client::stats() returns them (the scheduler as worker -1); `workers` is the
// number of workers the run had, so workers that moved nothing count in the means.
RunMetrics compute_run_metrics(const std::vector<WorkerStats>& stats, int workers);

}  // namespace commbench::app
