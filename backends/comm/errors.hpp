// The errors a comm can raise, as distinct types with one-line messages.
#pragma once

#include <stdexcept>
#include <string>

#include "runtime/cancel.hpp"

namespace commbench {

// Base of every communication error.
class CommError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The peer closed, reset or died, or this end was closed or aborted; also raised for a
// read or write that was in progress when that happened.
class CommClosedError : public CommError {
 public:
  using CommError::CommError;
};

// connect() could not reach a listener (refused, unreachable, no such rank) before
// its timeout; the message names the address and the last reason.
class ConnectError : public CommError {
 public:
  using CommError::CommError;
};

// The peer violated the wire protocol: bad magic, version, frame count or size
// beyond the configured limits, or a malformed handshake.
class ProtocolError : public CommError {
 public:
  using CommError::CommError;
};

// A backend or progress policy that this build knows but this machine refuses (the kernel
// forbids io_uring, say); the one-line message names the reason. Tests skip on it.
class BackendUnavailable : public CommError {
 public:
  using CommError::CommError;
};

// An address that cannot be parsed or is not valid for its backend.
class AddressError : public CommError {
 public:
  using CommError::CommError;
};

}  // namespace commbench
