#include "harness/descriptor_budget.hpp"

#include "comm/fd_limit.hpp"
#include "tcp/tcp_backend.hpp"
#include "ucx/ucx_fd_limit.hpp"

namespace commbench {

// Measured by scale_probe ((fds_after - fds_listening) / (n - 1), Open MPI, one host,
// 2-32 ranks): tcp 1 (the socket); ucx 2 when the data endpoint runs over shared memory
// (the connection manager's socket and one more), 3 with UCX_TLS=tcp, which is what a
// connection between hosts uses: the larger is budgeted.
size_t descriptors_per_connection(const std::string& backend) {
  if (backend == "tcp") return 1;
  if (backend == "ucx") return 3;
  return 0;
}

size_t descriptors_kept_free(const std::string& backend) {
  // What each backend's connector leaves free (tcp_backend.hpp, ucx_fd_limit.hpp).
  if (backend == "ucx") return ucx::kDescriptorReserve;
  if (backend == "tcp") return tcp::kDescriptorReserve;
  return 0;
}

std::string descriptor_shortfall(const std::string& backend, size_t connections,
                                 const std::string& what) {
  DescriptorLimit l = descriptor_limit();
  if (l.soft < 0) return {};
  size_t open = open_descriptors();
  size_t per = descriptors_per_connection(backend);
  size_t need = open + connections * per + descriptors_kept_free(backend);
  if (need <= static_cast<size_t>(l.soft)) return {};
  return what + " needs about " + std::to_string(need) + " file descriptors per rank (" +
         std::to_string(connections) + " " + backend + " connections x " + std::to_string(per) +
         " + " + std::to_string(open) + " open + " +
         std::to_string(descriptors_kept_free(backend)) + " kept free), above RLIMIT_NOFILE " +
         limit_text(l.soft) + ": raise it with ulimit -n (hard limit " + limit_text(l.hard) + ")";
}

}  // namespace commbench
