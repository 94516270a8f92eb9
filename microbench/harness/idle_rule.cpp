#include "harness/idle_rule.hpp"

#include <stdexcept>

namespace commbench {

const std::vector<IdleRule>& idle_rules() {
  static const std::vector<IdleRule> rules = {
      {"spin",
       "never sleep while the loop runs: every idle turn polls again (UCX-Py's polling mode; "
       "MPI4Dask's coroutines re-test their requests after `await sleep(0)`)"},
      {"budget", "poll for --idle-spin microseconds, then arm and sleep (this suite's default)"},
      {"block",
       "arm and sleep after the first turn that found nothing (UCX-Py's blocking mode; "
       "asyncio's readiness loop under Dask's TCP comm)"},
  };
  return rules;
}

void check_idle_rule(const std::string& name, const std::string& entry) {
  std::string valid;
  for (const auto& r : idle_rules()) {
    if (name == r.name) return;
    valid += (valid.empty() ? "" : ", ") + std::string(r.name);
  }
  throw std::invalid_argument("unknown idle rule '" + name + "' in --backend entry '" + entry +
                              "' (valid: " + valid + ")");
}

LoopOptions idle_rule_options(const std::string& rule, const LoopOptions& base) {
  LoopOptions o = base;
  // A spin budget no run reaches (292 years) is "never block"; the loop's other
  // behaviour (yielding the core after spin_yield_after on a shared node) stays.
  if (rule == "spin") o.spin_budget = std::chrono::nanoseconds::max();
  if (rule == "block") o.spin_budget = std::chrono::nanoseconds::zero();
  return o;
}

}  // namespace commbench
