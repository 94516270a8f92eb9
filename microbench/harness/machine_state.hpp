// The machine's state around a run, recorded in every sidecar: on this machine class a
// busy neighbour or more ranks than CPUs moves every figure (BRIEF section 2), so a
// result is only worth as much as the state it was taken in.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace commbench {

struct LoadAverage {
  double one_min = -1;  // -1: getloadavg failed
  double five_min = -1;
};

LoadAverage load_average() noexcept;

// {"load_avg_1min_start", "load_avg_5min_start", "load_avg_1min_end", "load_avg_5min_end",
//  "cpus_online", "ranks_on_node", "oversubscribed"}; `machines` holds every rank's
// machine_id() (harness/machine_ranks.hpp), so ranks_on_node is the most ranks any one
// machine runs, virtual hosts sharing its CPUs together. `end` is taken now.
nlohmann::ordered_json machine_state(const LoadAverage& start,
                                     const std::vector<std::string>& machines);

}  // namespace commbench
