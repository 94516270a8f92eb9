// The UCX handshake, over the UCP stream API of the new endpoint (stream data belongs to
// one endpoint, whereas a tag message could come from any endpoint of the worker).
// Both sides send at once, then read:
//   u32 magic 'CBUX' | u16 version | u16 reserved | u64 tag to send to me
// followed by the common hello (comm/handshake.hpp: version + the sender's own name).
// Each side allocates its receive tag from its worker, so tags are unique per worker.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/cancel.hpp"
#include "runtime/task.hpp"
#include "ucx/ucx_worker.hpp"

namespace commbench::ucx {

struct PeerHello {
  uint64_t tag = 0;  // the tag this side sends with
  std::string name;  // the peer's own contact address
};

// Throws CommClosedError when the endpoint fails, ProtocolError on a malformed hello,
// OperationCancelled/TimeoutError when `token` fires (the endpoint is then closed).
Task<PeerHello> exchange_hello(Worker& worker, EndpointState& ep, uint64_t my_tag,
                               const std::string& my_name, CancelToken token);

}  // namespace commbench::ucx
