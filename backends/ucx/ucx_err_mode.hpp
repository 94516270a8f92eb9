// How the data endpoints meet a dead peer (--backend-opt ucx_err_handling): UCX 1.13 gives
// no mode that keeps its fast same-host transports and survives the peer's death
// (backends/ucx/README.md has the measurements).
#pragma once

#include <ucp/api/ucp.h>

#include <string>

#include "comm/backend_catalog.hpp"

namespace commbench::ucx {

enum class DataErrMode {
  // err_mode NONE, CMA left out of the data worker's transports (unless the user set
  // UCX_TLS): shared memory for eager and rendezvous; a dead peer is seen on the
  // connection endpoint.
  nocma,
  // UCP_ERR_HANDLING_MODE_PEER: UCX 1.13 then refuses sysv/posix ("no peer failure
  // handler") and CMA, so a same-host data endpoint runs over TCP loopback.
  peer,
  // err_mode NONE with UCX's default transports, CMA included: fastest at >= 1 MiB, but a
  // peer that dies during a CMA rendezvous read aborts this process inside UCX 1.13.
  none,
};

inline constexpr const char* kErrHandlingKey = "ucx_err_handling";
// "" = nocma; throws std::invalid_argument naming the values otherwise.
DataErrMode parse_err_handling(const std::string& s);
ucp_err_handling_mode_t ucp_mode(DataErrMode m);
// The --backend-opt key as --list-backends shows it.
SettingInfo err_handling_setting();

}  // namespace commbench::ucx
