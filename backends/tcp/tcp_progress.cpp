#include "tcp/tcp_progress.hpp"

namespace commbench::tcp {

Progress parse_progress(const std::string& name) {
  return parse_policy(kProgressPolicies, name, "tcp");
}

const char* to_string(Progress p) noexcept {
  const char* name = policy_name(kProgressPolicies, p);
  return name ? name : "?";
}

std::vector<PolicyInfo> progress_policies() {
  return describe_policies(kProgressPolicies);
}

}  // namespace commbench::tcp
