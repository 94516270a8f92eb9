#include "app_summary.hpp"

#include <algorithm>
#include <cstdio>

namespace commbench::app {

namespace {

// The q-quantile of sorted samples, interpolated between order statistics.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double at = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<size_t>(at);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

std::string metric_line(const char* name, std::vector<double> v, const char* unit, double scale,
                        const char* fmt) {
  std::sort(v.begin(), v.end());
  char num[5][32];
  double at[5] = {quantile(v, 0.5), quantile(v, 0.25), quantile(v, 0.75), v.front(), v.back()};
  for (int i = 0; i < 5; ++i) std::snprintf(num[i], sizeof num[i], fmt, at[i] * scale);
  char line[256];
  std::snprintf(line, sizeof line, "#   %-12s %12s %-8s (%s .. %s; min %s, max %s)\n", name, num[0],
                unit, num[1], num[2], num[3], num[4]);
  return line;
}

}  // namespace

void RunSummary::add_run(double wall_s, double comm_s, double throughput) {
  wall_.push_back(wall_s);
  comm_.push_back(comm_s);
  throughput_.push_back(throughput);
}

void RunSummary::add_transfer(int from_worker, int to_worker, uint64_t bytes,
                              uint64_t duration_ns) {
  if (from_worker < 0 || to_worker < 0) return;  // the client's gathers are not the shuffle
  Pair& p = pairs_[{from_worker, to_worker}];
  p.bytes += bytes;
  ++p.transfers;
  if (duration_ns > 0)
    p.mbps.push_back(static_cast<double>(bytes) * 1e3 / static_cast<double>(duration_ns));
}

std::string RunSummary::text(const std::string& throughput_unit) const {
  if (wall_.empty()) return {};
  std::string out = "# ---- summary of " + std::to_string(wall_.size()) +
                    " timed runs: median (25th .. 75th percentile; min, max) ----\n";
  out += metric_line("wall clock", wall_, "s", 1, "%.4f");
  out += metric_line("comm time", comm_, "s", 1, "%.4f");
  out += metric_line("throughput", throughput_, throughput_unit.c_str(), 1, "%.2f");
  if (pairs_.empty()) {
    out += "# no worker-to-worker transfers (one worker, or every input was local)\n";
    return out;
  }
  out +=
      "# ---- bandwidth per worker pair, over every transfer of the timed runs (MB = 1e6 B) ----\n";
  char line[256];
  std::snprintf(line, sizeof line, "#   %-10s %12s %12s %12s %10s %12s\n", "(from,to)", "p25 MB/s",
                "p50 MB/s", "p75 MB/s", "transfers", "total MB");
  out += line;
  for (const auto& [pair, p] : pairs_) {
    std::vector<double> v = p.mbps;
    std::sort(v.begin(), v.end());
    char name[32];
    std::snprintf(name, sizeof name, "(%d,%d)", pair.first, pair.second);
    std::snprintf(line, sizeof line, "#   %-10s %12.1f %12.1f %12.1f %10zu %12.1f\n", name,
                  quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75), p.transfers,
                  static_cast<double>(p.bytes) / 1e6);
    out += line;
  }
  return out;
}

}  // namespace commbench::app
