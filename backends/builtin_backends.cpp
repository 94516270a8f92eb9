// Every backend built into the library, one line each.
#include "comm/registry.hpp"
#include "mpi/mpi_backend.hpp"
#include "tcp/tcp_backend.hpp"
#include "ucx/ucx_backend.hpp"

namespace commbench {

Registry& registry() {
  static Registry r = [] {
    Registry reg;
    reg.add({"tcp", {"epoll"}, &tcp::make_tcp_backend});
    reg.add({"mpi", {"batched", "cooperative", "blocking"}, &mpi::make_mpi_backend});
    reg.add({"ucx", {"cooperative", "polling", "event"}, &ucx::make_ucx_backend});
    return reg;
  }();
  return r;
}

}  // namespace commbench
