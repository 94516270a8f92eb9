#include "tcp/tcp_progress.hpp"

namespace commbench::tcp {

std::vector<PolicyInfo> progress_policies() {
  return describe_policies(kProgressPolicies);
}

}  // namespace commbench::tcp
