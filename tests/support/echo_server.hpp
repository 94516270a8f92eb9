// The tests' echo server: writes every message it reads back to its sender.
#pragma once

#include <cstddef>
#include <string>

#include "comm/comm.hpp"

namespace commbench::testing {

// What the echo handlers of one test saw, for assertions on the server side.
struct EchoLog {
  size_t live = 0;             // handlers running now
  size_t peak = 0;             // most handlers running at once
  size_t clean_ends = 0;       // ended because the peer closed (CommClosedError)
  size_t protocol_errors = 0;  // ended because the peer sent what cannot be decoded
  // How the last handler ended ("CommClosedError" or "ProtocolError") and its message;
  // empty while none has.
  std::string last_end, last_why;
};

// Echoes until the peer closes or breaks the protocol, both recorded in `log` (null: not
// recorded). Any other error escapes to the loop's error handler, where a fixture sees it.
CommHandler echo_server(EchoLog* log = nullptr);

}  // namespace commbench::testing
