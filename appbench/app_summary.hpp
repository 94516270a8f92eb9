// The summary an app prints after its timed runs, the way dask-cuda's benchmarks end: each
// metric's median with its spread over the runs, then a table of the bandwidth every
// worker pair saw (quartiles over its transfers, and their total bytes), so one slow link
// or one slow direction stands out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace commbench::app {

class RunSummary {
 public:
  void add_run(double wall_s, double comm_s, double throughput);
  // One worker-to-worker transfer of a timed run, as the receiver timed it.
  void add_transfer(int from_worker, int to_worker, uint64_t bytes, uint64_t duration_ns);

  // Lines prefixed by '#', ending in a newline; empty before the first run.
  // `throughput_unit`: what add_run's throughput was in ("MB/s" or "Mrows/s").
  std::string text(const std::string& throughput_unit) const;

 private:
  struct Pair {
    std::vector<double> mbps;  // one per transfer that took time
    uint64_t bytes = 0;
    size_t transfers = 0;
  };
  std::vector<double> wall_, comm_, throughput_;
  std::map<std::pair<int, int>, Pair> pairs_;
};

}  // namespace commbench::app
