#include "ucx/ucx_endpoint.hpp"

#include <atomic>

#include "ucx/ucx_worker.hpp"

namespace commbench::ucx {

namespace {
std::atomic<long long> g_live_endpoints{0};
}  // namespace

void endpoint_created() noexcept {
  g_live_endpoints.fetch_add(1, std::memory_order_relaxed);
}
void endpoint_released() noexcept {
  g_live_endpoints.fetch_sub(1, std::memory_order_relaxed);
}
long long live_endpoints() noexcept {
  return g_live_endpoints.load(std::memory_order_relaxed);
}

void EndpointState::on_error(void* arg, ucp_ep_h, ucs_status_t status) noexcept {
  auto* self = static_cast<EndpointState*>(arg);
  if (self->closing || self->failed) return;
  self->error = status;
  // Inside ucp_worker_progress: no UCP calls that progress or close here. The worker
  // closes the endpoint and cancels the receive right after progress returns.
  if (auto w = self->worker.lock()) w->endpoint_failed(self->shared_from_this());
}

void EndpointState::force_close() noexcept {
  auto close = [this](ucp_ep_h& e, const std::weak_ptr<Worker>& owner) {
    if (!e) return;
    ucp_request_param_t p{};
    // FORCE only for the connection endpoint. UCP refuses a FORCE close of an endpoint
    // that has neither a CM lane nor peer error handling (ucp_ep_close_nbx returns
    // UCS_ERR_INVALID_PARAM and closes nothing): that is `data`, made from a worker
    // address with err_mode NONE. Force-closing it leaked the whole data endpoint, its
    // transport endpoints and their sockets on every abort (the accepting side of each
    // connect/close cycle: ~2-3 KiB a cycle, or ~5 descriptors a cycle without CMA). A
    // flush close is what UCP allows there; its request is adopted by the worker like
    // any other and bounded by the worker's teardown should the peer never answer.
    // (With ucx_err_handling=peer FORCE would be allowed; flush serves both modes.)
    //
    // Except while a send on `data` is unfinished (a write cancelled or failed mid-way):
    // its rendezvous header may sit unmatched in the receiver's queue and name this
    // endpoint by its id, a plain pointer for an endpoint without error handling. UCP
    // keeps a remotely connected endpoint alive for that reason, but a loopback one (the
    // peer on this same worker: every in-process connection) is destroyed at once, and
    // the receiver's ucp_tag_recv_nbx then read freed memory (reliability_faults
    // DropMidMessage/ucx_*: "Assertion `(*ep_p)->worker == worker' failed"). That rare
    // endpoint is left to ucp_worker_destroy, which destroys every endpoint.
    if (&e == &data && sends_in_flight > 0) {
      e = nullptr;
      endpoint_released();  // no longer ours: ucp_worker_destroy ends it
      return;
    }
    if (&e == &ep) {
      p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    }
    void* r = ucp_ep_close_nbx(e, &p);
    e = nullptr;
    endpoint_released();
    if (auto w = owner.lock()) w->adopt_close(r, shared_from_this());
  };
  close(data, data_worker);
  close(ep, worker);
}

}  // namespace commbench::ucx
