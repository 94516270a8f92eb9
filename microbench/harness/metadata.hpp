// What made a run: versions, environment, hosts, CPU, commit and the exact command line,
// written as the JSON sidecar of every CSV.
#pragma once

#include <string>
#include <vector>

#include "harness/bootstrap.hpp"
#include "harness/json.hpp"

namespace commbench {

// Collective (gathers host names). `settings` holds the benchmark's resolved options.
JsonObject collect_metadata(const Bootstrap& boot, const std::vector<std::string>& argv,
                            const std::string& run_id, const JsonObject& settings);
// A run id shared by all ranks: UTC time + rank 0's pid.
std::string make_run_id(const Bootstrap& boot);

}  // namespace commbench
