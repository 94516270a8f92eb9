#include "ucx/ucx_progress.hpp"

namespace commbench::ucx {

Progress parse_progress(const std::string& name) {
  return parse_policy(kProgressPolicies, name, "ucx");
}

const char* to_string(Progress p) noexcept {
  if (p == Progress::control) return "control";
  const char* name = policy_name(kProgressPolicies, p);
  return name ? name : "?";
}

std::vector<PolicyInfo> progress_policies() {
  return describe_policies(kProgressPolicies);
}

}  // namespace commbench::ucx
