// A connection's two UCP endpoints and what their error handler needs, and the count of
// the endpoints this process holds.
#pragma once

#include <ucp/api/ucp.h>

#include <memory>

namespace commbench::ucx {

class Worker;

// The ucp endpoints this process holds, over every worker: counted when ucp_ep_create
// succeeds and when we give one up (ucp_ep_close_nbx, or left to ucp_worker_destroy), so
// the scaling probe reports a count, not an estimate (Backend::resources()).
void endpoint_created() noexcept;
void endpoint_released() noexcept;
long long live_endpoints() noexcept;

// What an endpoint's error handler needs; kept alive by its comm and, while the endpoint
// is being closed, by the worker, so a late callback never touches freed memory.
//
// A connection has two endpoints. `ep` comes from the socket-address connection (the
// listener's connection manager) with peer error handling: it carries the handshake and
// is how a dead or departed peer is noticed. Peer error handling rules out UCX's shared
// memory transports (it keeps only those that can detect a peer's failure: TCP here), so
// the tag traffic goes over `data`, an endpoint made from the peer's worker address
// (exchanged in the handshake) without error handling, which may use shared memory and
// CMA like any MPI would. When `ep` fails both are closed and the receive is cancelled.
// The two endpoints live on two workers: `ep` on the loop's control worker, `data` on the
// policy's data worker. Connection-manager endpoints (TCP here) would make every
// ucp_worker_progress of the data path pay an epoll_wait system call on the TCP
// interface; on their own worker they cost nothing per message.
struct EndpointState : std::enable_shared_from_this<EndpointState> {
  std::weak_ptr<Worker> worker;       // control worker (owns `ep`)
  std::weak_ptr<Worker> data_worker;  // owns `data` and the receives
  ucp_ep_h ep = nullptr;              // connection-manager endpoint: handshake, failure detection
  ucp_ep_h data = nullptr;            // worker-address endpoint: every tag message
  ucs_status_t error = UCS_OK;        // set by the error handler
  bool failed = false;                // the handler ran; the endpoint has been closed by us
  bool closing = false;               // we are closing it ourselves: ignore the handler
  void* pending_recv = nullptr;       // the comm's outstanding receive, cancelled on failure
  unsigned sends_in_flight = 0;       // the comm's tag sends posted and not yet completed

  static void on_error(void* arg, ucp_ep_h ep, ucs_status_t status) noexcept;
  // Closes both endpoints at once: `ep` by force (its outstanding requests complete with
  // an error), `data` by flush, or not at all while sends on it are in flight (see the
  // definition); the worker finishes the close requests and keeps this state alive
  // until then.
  void force_close() noexcept;
};

}  // namespace commbench::ucx
