// raw-ucx: the UCX baseline without the coroutine layer — a plain UCP tag loop in the
// manner of `ucx_perftest -t tag_lat / tag_bw`: its own context, worker and endpoint
// (worker addresses exchanged through the bootstrap), exactly `size` bytes per tag
// message, no header. Variant polling (-E poll) busy-polls ucp_worker_progress until each
// request is done; variant sleep (-E sleep) waits in ucp_worker_wait whenever a progress
// call found nothing. The second matters for large windows on few cores: over shared
// memory the receiver copies a rendezvous message (CMA) while the sender only waits for
// the acknowledgement, and a sender spinning on the same CPUs slows that copy (measured:
// the coroutine ucx backend, whose sender sleeps, reached 1.3-2x the polling raw loop's
// bandwidth at 16 MiB). Posted sends and receives are counted by their callbacks in one
// batch each.
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <string>
#include <vector>

#include "drivers/raw_driver.hpp"
#include "harness/progress_ticks.hpp"

namespace commbench {

namespace raw_ucx {

constexpr ucp_tag_t kDataTag = 1, kAckTag = 2;

// Out of line: only a failing call gets here.
[[noreturn]] void fail(ucs_status_t s, const char* what);
inline void check(ucs_status_t s, const char* what) {
  if (s != UCS_OK) fail(s, what);
}

// Completions of a batch of requests, counted by their callbacks.
struct Batch {
  size_t done = 0;
  ucs_status_t error = UCS_OK;
  std::vector<void*> requests;

  static void on_send(void*, ucs_status_t s, void* user) {
    auto* b = static_cast<Batch*>(user);
    ++b->done;
    progress::tick();
    if (s != UCS_OK) b->error = s;
  }
  static void on_recv(void*, ucs_status_t s, const ucp_tag_recv_info_t*, void* user) {
    on_send(nullptr, s, user);
  }

  // Adds what a *_nbx call returned: done at once (nullptr), an error, or a request.
  void add(void* r, const char* what) {
    if (r == nullptr) {
      ++done;
      progress::tick();
      requests.push_back(nullptr);
      return;
    }
    if (UCS_PTR_IS_ERR(r)) check(UCS_PTR_STATUS(r), what);
    requests.push_back(r);
  }
};

}  // namespace raw_ucx

class RawUcxDriver final : public RawDriver {
 public:
  static constexpr const RawBaseline& kBaseline = kRawUcx;
  static constexpr bool kEmptyMessages = true;

  RawUcxDriver(DriverEnv& env, const RawVariant& variant);
  ~RawUcxDriver() override { close(); }
  std::vector<std::string> transports() const override;

  void connect() override;
  void close() override;

  void send(const std::byte* p, size_t n) { send_one(p, n, raw_ucx::kDataTag); }
  void recv(std::byte* p, size_t n) { recv_one(p, n, raw_ucx::kDataTag); }
  void send_ack() { send_one(&ack_, 1, raw_ucx::kAckTag); }
  void recv_ack() { recv_one(&ack_, 1, raw_ucx::kAckTag); }

  void post_send(const std::byte* p, size_t n) { post_send(p, n, raw_ucx::kDataTag, sends_); }
  void post_recv(std::byte* p, size_t n) { post_recv(p, n, raw_ucx::kDataTag, recvs_); }
  void wait_sends() { wait(sends_, "send"); }
  void wait_recvs() { wait(recvs_, "recv"); }

 private:
  void post_send(const void* data, size_t size, ucp_tag_t tag, raw_ucx::Batch& b) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = &raw_ucx::Batch::on_send;
    p.user_data = &b;
    b.add(ucp_tag_send_nbx(ep_, data, size, tag, &p), "send");
  }
  void post_recv(void* data, size_t size, ucp_tag_t tag, raw_ucx::Batch& b) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv = &raw_ucx::Batch::on_recv;
    p.user_data = &b;
    b.add(ucp_tag_recv_nbx(worker_, data, size, tag, ~ucp_tag_t{0}, &p), "recv");
  }

  // Progresses until every request of the batch completed (spinning, or sleeping on the
  // worker's events when a turn found nothing), then frees them.
  void wait(raw_ucx::Batch& b, const char* what) {
    while (b.done < b.requests.size())
      if (ucp_worker_progress(worker_) == 0 && sleeps_)
        raw_ucx::check(ucp_worker_wait(worker_), "ucp_worker_wait");
    for (void* r : b.requests)
      if (r) ucp_request_free(r);
    b.requests.clear();
    b.done = 0;
    ucs_status_t e = b.error;
    b.error = UCS_OK;
    raw_ucx::check(e, what);
  }

  void send_one(const void* data, size_t size, ucp_tag_t tag) {
    post_send(data, size, tag, one_);
    wait(one_, "send");
  }
  void recv_one(void* data, size_t size, ucp_tag_t tag) {
    post_recv(data, size, tag, one_);
    wait(one_, "recv");
  }

  bool sleeps_ = false;  // variant sleep
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  ucp_ep_h ep_ = nullptr;
  std::byte ack_{1};
  raw_ucx::Batch one_, sends_, recvs_;
};

}  // namespace commbench
