#include "ucx/ucx_err_mode.hpp"

#include <stdexcept>

namespace commbench::ucx {

DataErrMode parse_err_handling(const std::string& s) {
  if (s.empty() || s == "nocma") return DataErrMode::nocma;
  if (s == "peer") return DataErrMode::peer;
  if (s == "none") return DataErrMode::none;
  throw std::invalid_argument(std::string(kErrHandlingKey) +
                              " must be one of nocma, peer, none (got '" + s + "')");
}

ucp_err_handling_mode_t ucp_mode(DataErrMode m) {
  return m == DataErrMode::peer ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
}

SettingInfo err_handling_setting() {
  return {kErrHandlingKey,
          {"nocma", "peer", "none"},
          "nocma",
          "how ucx data endpoints meet a dead peer: nocma (no peer error handling, CMA left "
          "out unless UCX_TLS is set: survives, shared memory kept), peer "
          "(UCP_ERR_HANDLING_MODE_PEER: survives, but UCX 1.13 then uses TCP even on one "
          "host) or none (UCX's transports with CMA: fastest at >= 1 MiB, but a peer dying "
          "in a CMA read aborts this process)"};
}

}  // namespace commbench::ucx
