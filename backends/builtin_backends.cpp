// Every backend built into the library, one entry each: what it is (comm/registry.hpp).
#include "comm/registry.hpp"
#include "mpi/mpi_backend.hpp"
#include "tcp/tcp_backend.hpp"
#include "ucx/ucx_backend.hpp"
#include "ucx/ucx_fd_limit.hpp"

namespace commbench {

Registry& registry() {
  static Registry r = [] {
    Registry reg;
    // Descriptors per connection, measured by scale_probe ((fds_after - fds_listening) /
    // (n - 1), Open MPI, one host, 2-32 ranks): tcp 1 (the socket); ucx 2 when the data
    // endpoint runs over shared memory (the connection manager's socket and one more), 3
    // with UCX_TLS=tcp, which is what a connection between hosts uses: the larger is
    // budgeted; mpi none of its own.
    reg.add({.scheme = "tcp",
             .progress_policies = tcp::progress_policies(),
             .settings = tcp::backend_settings(),
             .make = &tcp::make_tcp_backend,
             .descriptors_per_connection = 1,
             .descriptors_kept_free = tcp::kDescriptorReserve,
             .hello_over_plain_tcp = true});
    reg.add({.scheme = "mpi",
             .progress_policies = mpi::progress_policies(),
             .settings = mpi::backend_settings(),
             .make = &mpi::make_mpi_backend});
    reg.add({.scheme = "ucx",
             .progress_policies = ucx::progress_policies(),
             .settings = ucx::backend_settings(),
             .make = &ucx::make_ucx_backend,
             .descriptors_per_connection = 3,
             .descriptors_kept_free = ucx::kDescriptorReserve});
    return reg;
  }();
  return r;
}

}  // namespace commbench
