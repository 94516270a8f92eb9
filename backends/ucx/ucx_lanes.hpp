// Which transports UCX chose for an endpoint: the lanes of its configuration, as
// ucp_ep_print_info describes them ("sysv/memory", "cma/memory", "tcp/eth0", "rc_mlx5/
// mlx5_0:1"). UCX picks them itself from UCX_TLS, UCX_NET_DEVICES and what the peer
// offers, so a run says which it got rather than what it asked for. UCP has no query
// for it (ucp_ep_query does not list lanes); the text is the documented debug output.
#pragma once

#include <ucp/api/ucp.h>

#include <string>
#include <vector>

namespace commbench::ucx {

// Transport/device of every lane in `ep_info` (ucp_ep_print_info's text), in lane order
// and without repeats; connection-manager lanes, which carry no data, are left out.
std::vector<std::string> parse_lane_transports(const std::string& ep_info);

// The same for a live endpoint (empty when UCX prints nothing). Not for timed loops: it
// formats UCX's whole endpoint description.
std::vector<std::string> endpoint_transports(ucp_ep_h ep);

}  // namespace commbench::ucx
