// What made a run: versions, environment, hosts, CPU, the machine's state, commit and
// the exact command line, written as the JSON sidecar of every CSV.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "harness/bootstrap.hpp"
#include "harness/machine_state.hpp"

namespace commbench {

// Sidecars keep their keys in the order they were written (readers diff them by eye).
using Json = nlohmann::ordered_json;

// Collective (gathers host names). `settings` holds the benchmark's resolved options,
// typed; `load_at_start` was taken when the session started.
Json collect_metadata(const Bootstrap& boot, const std::vector<std::string>& argv,
                      const std::string& run_id, const Json& settings,
                      const LoadAverage& load_at_start);
// The sidecar's text: indented, bytes that are not UTF-8 (an odd environment value)
// replaced rather than thrown on.
std::string sidecar_text(const Json& meta);
// A run id shared by all ranks: UTC time + rank 0's pid.
std::string make_run_id(const Bootstrap& boot);

}  // namespace commbench
