// The UCX handshake, over the UCP stream API of the new endpoint (stream data belongs to
// one endpoint, whereas a tag message could come from any endpoint of the worker).
// Both sides send at once, then read:
//   u32 magic 'CBUX' | u16 version | u16 worker address length | u64 tag to send to me
// followed by the common hello (comm/handshake.hpp: version + the sender's own name)
// and the sender's worker address (for the data endpoint, see EndpointState).
// Each side allocates its receive tag from its worker, so tags are unique per worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cancel.hpp"
#include "runtime/task.hpp"
#include "ucx/ucx_worker.hpp"

namespace commbench::ucx {

struct PeerHello {
  uint64_t tag = 0;  // the tag this side sends with
  std::string name;  // the peer's own contact address
  std::vector<std::byte> address;  // the peer's worker address
};

// Makes `ep.data` from the peer's worker address. Throws CommClosedError.
void connect_data_endpoint(Worker& data, EndpointState& ep, const PeerHello& peer);

// Throws CommClosedError when the endpoint fails, ProtocolError on a malformed hello,
// OperationCancelled/TimeoutError when `token` fires (the endpoint is then closed).
// `control` owns ep.ep; `data_address` is the worker address of our data worker.
Task<PeerHello> exchange_hello(Worker& control, EndpointState& ep, uint64_t my_tag,
                               const std::string& my_name,
                               const std::vector<std::byte>& data_address, CancelToken token);

}  // namespace commbench::ucx
