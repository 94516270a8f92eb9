// "what: UCX status text": how every part of the ucx backend words a UCX failure.
#pragma once

#include <ucs/type/status.h>

#include <string>

namespace commbench::ucx {

inline std::string status_message(const std::string& what, ucs_status_t status) {
  return what + ": " + ucs_status_string(status);
}

}  // namespace commbench::ucx
