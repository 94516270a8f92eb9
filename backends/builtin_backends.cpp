// Every backend built into the library, one line each.
#include "comm/registry.hpp"
#include "mpi/mpi_backend.hpp"
#include "tcp/tcp_backend.hpp"
#include "ucx/ucx_backend.hpp"

namespace commbench {

Registry& registry() {
  static Registry r = [] {
    Registry reg;
    reg.add({"tcp", tcp::progress_policies(), tcp::backend_settings(), &tcp::make_tcp_backend});
    reg.add({"mpi", mpi::progress_policies(), mpi::backend_settings(), &mpi::make_mpi_backend});
    reg.add({"ucx", ucx::progress_policies(), ucx::backend_settings(), &ucx::make_ucx_backend});
    return reg;
  }();
  return r;
}

}  // namespace commbench
