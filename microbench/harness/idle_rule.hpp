// What an event loop does when a turn found nothing to do: the idle rule, an axis of its
// own beside the progress policy (issue 28). The paper's designs differ here more than in
// how they drive their library: UCX-Py's polling mode and MPI4Dask's `await sleep(0)`
// loops never let the loop sleep while it runs (spin), UCX-Py's blocking mode and Dask's
// asyncio TCP arm and sleep at once (block), and this suite's default spins for a budget
// (--idle-spin) and then blocks. A --backend entry names one with a suffix,
// "ucx:polling@spin", so several rules run interleaved in one invocation; an entry without
// one runs under --idle-spin as before and writes an empty `idle` cell.
#pragma once

#include <string>
#include <vector>

#include "runtime/event_loop.hpp"

namespace commbench {

struct IdleRule {
  const char* name;
  const char* description;
};

// The rules a --backend entry may name after '@', in the order --list-backends shows them.
const std::vector<IdleRule>& idle_rules();
// Throws std::invalid_argument naming the valid rules when `name` is not one of them.
void check_idle_rule(const std::string& name, const std::string& entry);
// The loop options of `rule` ("" = the run's own, `base`): spin never blocks while the loop
// runs, block arms and sleeps after the first empty turn, budget keeps base's spin budget.
LoopOptions idle_rule_options(const std::string& rule, const LoopOptions& base);

}  // namespace commbench
