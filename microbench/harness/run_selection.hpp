// What a run selects before it measures anything, the same for both bench families: the
// backends and their progress policies (--backend name[:policy], --progress, --backend-opt),
// where the ranks listen (--interface), how the event loop idles (--idle-spin,
// --idle-yield-after) and the run's deadlines (--connect-timeout, --timeout). One set of
// CLI11 options, parsed and checked once, so an app and a microbenchmark cannot drift.
#pragma once

#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "harness/cli_fwd.hpp"
#include "runtime/event_loop.hpp"

namespace commbench {

// What --backend takes: the microbenchmarks measure a comma list of coroutine backends and
// raw baselines interleaved; an app carries all its traffic over one coroutine backend.
enum class Family { microbench, appbench };

// One entry of --backend: "tcp", "raw-tcp", "mpi:batched", "ucx:polling@spin"
// (name[:progress][@idle rule], harness/idle_rule.hpp).
struct BackendSpec {
  std::string name;
  std::string progress;  // empty = the backend's default (its table's first policy)
  std::string idle;      // empty = the run's --idle-spin; else spin | budget | block
  std::string label() const {
    return (progress.empty() ? name : name + ":" + progress) + (idle.empty() ? "" : "@" + idle);
  }
};

struct RunSelection {
  std::string backends;
  std::string progress;                   // default policy of entries without one
  std::vector<std::string> backend_opts;  // KEY=VALUE, passed to coroutine backends
  std::string interface;
  double connect_timeout_s = 30;
  double run_timeout_s = 0;         // 0 = no limit
  double idle_spin_us = 50;         // event loop: spin this long when idle before blocking
  double idle_yield_after_us = -1;  // ... and yield the core after this (-1: auto)

  // Resolved by resolve_selection(); every entry's name and policy is known to exist.
  std::vector<BackendSpec> specs;
  BackendOptions backend_options;  // extra = --backend-opt (limits are the family's)
};

// Registers the options above on `app`, with the family's defaults and help texts.
void add_selection_options(CLI::App& app, RunSelection& s, Family family);
// Checks and resolves; throws std::invalid_argument with a one-line message (an unknown
// backend or policy names the valid ones from the backends' own tables).
void resolve_selection(RunSelection& s, Family family);
// Sets the loop's idle behaviour from --idle-spin and --idle-yield-after, and, in an app
// (one entry), the entry's own idle rule.
void apply_idle_options(const RunSelection& s, EventLoop& loop);
// The loop options entry `spec` runs under, given the run's own (`base`).
LoopOptions spec_loop_options(const BackendSpec& spec, const LoopOptions& base);

}  // namespace commbench
