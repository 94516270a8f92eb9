// The UCX handshake, over the UCP stream API of the new endpoint (stream data belongs to
// one endpoint, whereas a tag message could come from any endpoint of the worker).
// The connector speaks first; the listener reads, checks the job token (comm/peer_auth.hpp)
// and only then answers, so a stray learns nothing from us. The hello's bytes:
// ucx_hello.hpp.
// Each side allocates its receive tag from its worker, so tags are unique per worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/peer_auth.hpp"
#include "runtime/cancel.hpp"
#include "runtime/task.hpp"
#include "ucx/ucx_hello.hpp"
#include "ucx/ucx_worker.hpp"

namespace commbench::ucx {

// Makes `ep.data` from the peer's worker address. Throws CommClosedError.
void connect_data_endpoint(Worker& data, EndpointState& ep, const PeerHello& peer);

// Throws CommClosedError when the endpoint fails, ProtocolError on a malformed hello or
// a wrong job token (the endpoint is then closed; counting it is the caller's),
// OperationCancelled/TimeoutError when `token` fires (the endpoint is then closed).
// `control` owns ep.ep; `data_address` is the worker address of our data worker;
// `speak_first`: the connector's side.
Task<PeerHello> exchange_hello(Worker& control, EndpointState& ep, uint64_t my_tag,
                               const std::string& my_name, const PeerAuth& auth, bool speak_first,
                               const std::vector<std::byte>& data_address, CancelToken token);

}  // namespace commbench::ucx
