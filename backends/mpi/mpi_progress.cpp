#include "mpi/mpi_progress.hpp"

#include <mpi.h>

#include "mpi/mpi_session.hpp"

namespace commbench::mpi {

int required_thread_level(Progress p) noexcept {
  // The table says which policy calls MPI from a thread of its own; the others call it
  // from the loop's thread only.
  for (const auto& row : kProgressPolicies)
    if (row.value == p && row.needs_mpi_thread_multiple) return MPI_THREAD_MULTIPLE;
  return one_thread_level();
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
