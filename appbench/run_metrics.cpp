#include "run_metrics.hpp"

#include <algorithm>

namespace commbench::app {

uint64_t union_ns(std::vector<std::pair<uint64_t, uint64_t>> iv) {
  std::sort(iv.begin(), iv.end());
  uint64_t total = 0, open_from = 0, open_to = 0;
  bool open = false;
  for (const auto& [start, duration] : iv) {
    uint64_t end = start + duration;
    if (open && start <= open_to) {
      open_to = std::max(open_to, end);
      continue;
    }
    if (open) total += open_to - open_from;
    open_from = start;
    open_to = end;
    open = true;
  }
  if (open) total += open_to - open_from;
  return total;
}

RunMetrics compute_run_metrics(const std::vector<WorkerStats>& stats, int workers) {
  RunMetrics m;
  double comm_sum = 0, wait_sum = 0;
  for (const auto& w : stats) {
    if (w.worker < 0) {
      m.scheduler_cpu_ns = w.cpu_ns;
      continue;
    }
    m.worker_cpu_ns = std::max(m.worker_cpu_ns, w.cpu_ns);
    std::vector<std::pair<uint64_t, uint64_t>> iv;
    iv.reserve(w.transfers.size());
    for (const auto& t : w.transfers) {
      iv.emplace_back(t.start_ns, t.duration_ns);
      m.transfer_s += static_cast<double>(t.duration_ns) * 1e-9;
      m.bytes += t.bytes;
    }
    double comm = static_cast<double>(union_ns(std::move(iv))) * 1e-9;
    double wait = static_cast<double>(w.wait_ns) * 1e-9;
    comm_sum += comm;
    wait_sum += wait;
    m.comm_s_max_worker = std::max(m.comm_s_max_worker, comm);
    m.wait_s_max_worker = std::max(m.wait_s_max_worker, wait);
  }
  if (workers > 0) {
    m.comm_s = comm_sum / workers;
    m.wait_s = wait_sum / workers;
  }
  return m;
}

}  // namespace commbench::app
