#include "mpi/mpi_progress.hpp"

#include <mpi.h>

namespace commbench::mpi {

int required_thread_level(Progress p) noexcept {
  // Every other policy calls MPI from the loop's thread only.
  return p == Progress::thread ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
}

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
