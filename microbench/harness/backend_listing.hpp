// The backends a binary can run, as --list-backends prints them and as --backend checks
// them: read from the tables the code parses with (the comm registry, each backend's
// policy and --backend-opt tables, the raw baselines' table), never from a copy.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"

namespace commbench {

// [{name, kind: coroutine|raw, policies: [{name, description}], default_policy,
//   raw_baseline, options: [{key, values, default, description}]}]; the raw baselines
// only when `with_raw_baselines` (the microbenchmarks; the apps run coroutine backends).
nlohmann::ordered_json backend_table(bool with_raw_baselines);

// The policies backend `name` accepts, first = its default: a coroutine backend's table,
// or a raw baseline's variants (only `with_raw_baselines`). Throws std::invalid_argument
// "unknown backend 'x' (known: tcp, mpi, ...)" for any other name.
std::vector<PolicyInfo> backend_policies(const std::string& name, bool with_raw_baselines);
// Whether `name` is one of the raw baselines (harness/raw_baselines.hpp), not a backend.
bool is_raw_baseline(const std::string& name);

// "tcp, mpi, ucx" (the coroutine backends), "raw-tcp, raw-ucx, raw-mpi" (the raw
// baselines) or both, for help texts and refusals.
std::string backend_names(bool coroutine, bool raw_baselines);

// "tcp: epoll; mpi: batched|cooperative|thread|blocking; ..." (first = default), for --progress's
// help text in every binary.
std::string progress_summary();

}  // namespace commbench
