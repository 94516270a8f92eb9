#include "harness/machine_state.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

namespace commbench {

LoadAverage load_average() noexcept {
  double v[2] = {-1, -1};
  if (getloadavg(v, 2) != 2) return {};
  return {v[0], v[1]};
}

namespace {
// Two decimals, as uptime prints it; null when unknown.
nlohmann::ordered_json load_value(double v) {
  if (v < 0) return nullptr;
  return std::round(v * 100) / 100;
}
}  // namespace

nlohmann::ordered_json machine_state(const LoadAverage& start,
                                     const std::vector<std::string>& machines) {
  LoadAverage end = load_average();
  std::map<std::string, long> per_machine;
  for (const auto& m : machines) ++per_machine[m];
  long ranks_on_node = 0;
  for (const auto& [machine, n] : per_machine) ranks_on_node = std::max(ranks_on_node, n);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  nlohmann::ordered_json m;
  m["load_avg_1min_start"] = load_value(start.one_min);
  m["load_avg_5min_start"] = load_value(start.five_min);
  m["load_avg_1min_end"] = load_value(end.one_min);
  m["load_avg_5min_end"] = load_value(end.five_min);
  m["cpus_online"] = cpus;
  m["ranks_on_node"] = ranks_on_node;
  m["oversubscribed"] = cpus > 0 && ranks_on_node > cpus;
  return m;
}

}  // namespace commbench
