// What the fault-injecting wrapper backend does to the connections it wraps (test only).
//
// The wrapper sits on top of any registered backend ("fault+tcp://...", "fault+ucx://...")
// and speaks a thin protocol of its own over the inner comm: a hello message after
// connect, and, in front of every message, one extra frame holding the commbench frame
// header (comm/frame_header.hpp) that describes the frames that follow. That lets it
// corrupt a header or break a handshake the same way on every backend, while the inner
// backend's own behaviour is what is tested for delays, mid-message drops and closes.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace commbench::fault {

// Which comms the per-comm faults (delays, drops, corrupt headers) apply to.
enum class Side { both, connector, listener };

struct FaultPlan {
  Side comm_side = Side::both;
  // Every read / write waits this long before it reaches the inner comm.
  std::chrono::nanoseconds read_delay{0};
  std::chrono::nanoseconds write_delay{0};
  // The Nth write (0-based, per comm) runs on the inner comm for `drop_after`, is then
  // cancelled if still in progress (part of it may be on the wire) and the connection is
  // aborted; the writer gets CommClosedError. -1 = never.
  int drop_on_write = -1;
  std::chrono::nanoseconds drop_after{std::chrono::milliseconds(5)};
  // The Nth write (0-based, per comm) goes out with byte `corrupt_byte` of its header
  // frame inverted; the reader must refuse it with ProtocolError. -1 = never.
  int corrupt_on_write = -1;
  size_t corrupt_byte = 0;
  // Connector: abort the fresh inner connection before sending the hello.
  bool close_in_connect = false;
  // Connector: send a hello with a bad magic.
  bool corrupt_hello = false;
  // Listener: read the hello, then abort instead of answering.
  bool close_in_accept = false;

  // What happened (read by tests).
  size_t injected = 0;                 // faults this plan injected
  size_t handshakes_refused = 0;       // listener side: connections dropped in the hello
  std::string last_handshake_error;    // listener side: why the last one was dropped
  std::string last_handshake_error_type;  // its type: ProtocolError, CommClosedError, ...
};

// Faults injected by every plan in this process (the report counts them).
size_t total_faults_injected() noexcept;
void count_fault(FaultPlan& plan) noexcept;

}  // namespace commbench::fault
