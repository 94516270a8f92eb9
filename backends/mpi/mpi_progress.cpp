#include "mpi/mpi_progress.hpp"

namespace commbench::mpi {

Progress parse_progress(const std::string& s) {
  return parse_policy(kProgressPolicies, s, "mpi");
}

const char* to_string(Progress p) noexcept {
  const char* name = policy_name(kProgressPolicies, p);
  return name ? name : "?";
}

std::vector<PolicyInfo> progress_policies() {
  return describe_policies(kProgressPolicies);
}

}  // namespace commbench::mpi
