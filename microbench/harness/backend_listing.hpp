// The backends a binary can run, as --list-backends prints them: read from the tables the
// code parses with (the comm registry, each backend's policy and --backend-opt tables,
// the raw baselines' table), never from a copy.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace commbench {

// [{name, kind: coroutine|raw, policies: [{name, description}], default_policy,
//   raw_baseline, options: [{key, values, default, description}]}]; the raw baselines
// only when `with_raw_baselines` (the microbenchmarks; the apps run coroutine backends).
nlohmann::ordered_json backend_table(bool with_raw_baselines);

// "tcp: epoll; mpi: batched|cooperative|blocking; ..." (first = default), for --progress's
// help text in every binary.
std::string progress_summary();

}  // namespace commbench
