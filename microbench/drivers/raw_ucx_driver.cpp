// raw-ucx: the UCX baseline without the coroutine layer — a plain UCP tag loop in the
// manner of `ucx_perftest -t tag_lat / tag_bw -E poll`: its own context, worker and
// endpoint (worker addresses exchanged through the bootstrap), exactly `size` bytes per
// tag message, no header, and busy-polling ucp_worker_progress until each request is
// done. Bandwidth is a window of sends answered by a 1-byte ack (osu_bw), or, both ways,
// a window of receives and sends on both ranks (osu_bibw). Receive buffers as in raw-mpi
// (WindowBuffers); --validate checks every byte.
#include <ucp/api/ucp.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/errors.hpp"
#include "drivers/driver.hpp"
#include "drivers/raw_baselines.hpp"
#include "drivers/window_buffers.hpp"
#include "harness/pattern.hpp"
#include "ucx/ucx_lanes.hpp"

namespace commbench {

namespace {

constexpr ucp_tag_t kDataTag = 1, kAckTag = 2;

void check(ucs_status_t s, const char* what) {
  if (s != UCS_OK) throw CommError(std::string("raw-ucx ") + what + ": " + ucs_status_string(s));
}

std::string to_hex(const void* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    auto b = static_cast<const unsigned char*>(p)[i];
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::vector<unsigned char> from_hex(const std::string& s) {
  std::vector<unsigned char> out(s.size() / 2);
  auto v = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<unsigned char>(v(s[2 * i]) << 4 | v(s[2 * i + 1]));
  return out;
}

// Completions of a batch of requests, counted by their callbacks.
struct Batch {
  size_t done = 0;
  ucs_status_t error = UCS_OK;
  std::vector<void*> requests;

  static void on_send(void*, ucs_status_t s, void* user) {
    auto* b = static_cast<Batch*>(user);
    ++b->done;
    if (s != UCS_OK) b->error = s;
  }
  static void on_recv(void*, ucs_status_t s, const ucp_tag_recv_info_t*, void* user) {
    on_send(nullptr, s, user);
  }
};

class RawUcxDriver final : public Driver {
 public:
  explicit RawUcxDriver(DriverEnv& env) : env_(env) {}
  ~RawUcxDriver() override { close(); }
  std::string backend() const override { return kRawUcx.name; }
  std::string progress() const override { return kRawUcx.policy; }
  std::vector<std::string> transports() const override { return ucx::endpoint_transports(ep_); }

  void connect() override {
    int rank = env_.boot.rank();
    std::string mine;
    if (rank <= 1) {
      ucp_config_t* config = nullptr;
      check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
      ucp_params_t params{};
      params.field_mask = UCP_PARAM_FIELD_FEATURES;
      params.features = UCP_FEATURE_TAG;
      ucs_status_t s = ucp_init(&params, config, &context_);
      ucp_config_release(config);
      check(s, "ucp_init");
      ucp_worker_params_t wp{};
      wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
      wp.thread_mode = UCS_THREAD_MODE_SINGLE;
      check(ucp_worker_create(context_, &wp, &worker_), "ucp_worker_create");
      ucp_address_t* addr = nullptr;
      size_t len = 0;
      check(ucp_worker_get_address(worker_, &addr, &len), "ucp_worker_get_address");
      mine = to_hex(addr, len);
      ucp_worker_release_address(worker_, addr);
    }
    auto all = env_.boot.allgather(mine);
    if (rank > 1) return;
    auto peer = from_hex(all[rank == 0 ? 1 : 0]);
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t*>(peer.data());
    check(ucp_ep_create(worker_, &ep, &ep_), "ucp_ep_create");
  }

  void prepare(size_t max_size) override {
    send_.assign(std::max<size_t>(max_size, 1), std::byte{0});
    recv_.assign(std::max<size_t>(max_size, 1), std::byte{0});
  }

  size_t pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                  uint64_t* samples) override {
    int rank = env_.boot.rank();
    if (rank > 1) return 0;
    size_t wrong = 0;
    for (size_t i = 0; i < iters; ++i) {
      uint64_t mine = seed + 2 * i + (rank == 0 ? 0 : 1);
      uint64_t theirs = seed + 2 * i + (rank == 0 ? 1 : 0);
      if (validate) fill_pattern(send_.data(), size, mine);
      if (rank == 0) {
        uint64_t t0 = EventLoop::now_ns();
        send_one(send_.data(), size, kDataTag);
        recv_one(recv_.data(), size, kDataTag);
        samples[i] = EventLoop::now_ns() - t0;
      } else {
        recv_one(recv_.data(), size, kDataTag);
        if (validate) wrong += check_pattern(recv_.data(), size, theirs);
        send_one(send_.data(), size, kDataTag);
        continue;
      }
      if (validate) wrong += check_pattern(recv_.data(), size, theirs);
    }
    return wrong;
  }

  size_t bandwidth(size_t size, size_t iters, size_t window, bool bidir, uint64_t seed,
                   bool validate) override {
    int rank = env_.boot.rank();
    if (rank > 1) return 0;
    size_t slots = rx_.prepare(size, window, env_.opts.shared_recv_buffer && !validate);
    size_t wrong = 0;
    char ack = 1;
    for (size_t i = 0; i < iters; ++i) {
      if (validate) fill_pattern(send_.data(), size, seed + i);
      if (bidir) {
        // Receives first, so the peer's sends find them posted.
        sends_.requests.clear();
        sends_.done = 0;
        size_t first = std::min(slots, window);
        post_receives(size, first);
        for (size_t w = 0; w < window; ++w) post_send(send_.data(), size, kDataTag, sends_);
        wrong += finish_receives(size, window, first, slots, seed + i, validate);
        wait(sends_, "send");
      } else if (rank == 0) {
        sends_.requests.clear();
        sends_.done = 0;
        for (size_t w = 0; w < window; ++w) post_send(send_.data(), size, kDataTag, sends_);
        wait(sends_, "send");
        recv_one(&ack, 1, kAckTag);
      } else {
        size_t first = std::min(slots, window);
        post_receives(size, first);
        wrong += finish_receives(size, window, first, slots, seed + i, validate);
        send_one(&ack, 1, kAckTag);
      }
    }
    return wrong;
  }

  void close() override {
    if (ep_) {
      ucp_request_param_t p{};
      void* r = ucp_ep_close_nbx(ep_, &p);
      if (r != nullptr && !UCS_PTR_IS_ERR(r)) {
        uint64_t deadline = EventLoop::now_ns() + 2'000'000'000ull;
        while (ucp_request_check_status(r) == UCS_INPROGRESS && EventLoop::now_ns() < deadline)
          ucp_worker_progress(worker_);
        ucp_request_free(r);
      }
      ep_ = nullptr;
    }
    if (worker_) ucp_worker_destroy(worker_);
    if (context_) ucp_cleanup(context_);
    worker_ = nullptr;
    context_ = nullptr;
  }

 private:
  void post_send(const void* data, size_t size, ucp_tag_t tag, Batch& b) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = &Batch::on_send;
    p.user_data = &b;
    void* r = ucp_tag_send_nbx(ep_, data, size, tag, &p);
    if (r == nullptr) {
      ++b.done;
      b.requests.push_back(nullptr);
      return;
    }
    if (UCS_PTR_IS_ERR(r)) check(UCS_PTR_STATUS(r), "send");
    b.requests.push_back(r);
  }

  void post_recv(void* data, size_t size, ucp_tag_t tag, Batch& b) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv = &Batch::on_recv;
    p.user_data = &b;
    void* r = ucp_tag_recv_nbx(worker_, data, size, tag, ~ucp_tag_t{0}, &p);
    if (r == nullptr) {
      ++b.done;
      b.requests.push_back(nullptr);
      return;
    }
    if (UCS_PTR_IS_ERR(r)) check(UCS_PTR_STATUS(r), "recv");
    b.requests.push_back(r);
  }

  // Busy-polls until every request of the batch completed, then frees them.
  void wait(Batch& b, const char* what) {
    while (b.done < b.requests.size()) ucp_worker_progress(worker_);
    for (void* r : b.requests)
      if (r) ucp_request_free(r);
    b.requests.clear();
    b.done = 0;
    ucs_status_t e = b.error;
    b.error = UCS_OK;
    check(e, what);
  }

  void send_one(const void* data, size_t size, ucp_tag_t tag) {
    one_.requests.clear();
    one_.done = 0;
    post_send(data, size, tag, one_);
    wait(one_, "send");
  }
  void recv_one(void* data, size_t size, ucp_tag_t tag) {
    one_.requests.clear();
    one_.done = 0;
    post_recv(data, size, tag, one_);
    wait(one_, "recv");
  }

  void post_receives(size_t size, size_t count) {
    recvs_.requests.clear();
    recvs_.done = 0;
    for (size_t w = 0; w < count; ++w) post_recv(rx_[w], size, kDataTag, recvs_);
  }

  // Waits for the posted receives; checks them when validating; posts the next batch.
  size_t finish_receives(size_t size, size_t window, size_t first, size_t slots, uint64_t seed,
                         bool validate) {
    size_t wrong = 0;
    size_t batch = first;
    for (size_t done = 0;;) {
      wait(recvs_, "recv");
      if (validate)
        for (size_t w = 0; w < batch; ++w) wrong += check_pattern(rx_[w], size, seed);
      done += batch;
      if (done >= window) break;
      batch = std::min(slots, window - done);
      post_receives(size, batch);
    }
    return wrong;
  }

  DriverEnv& env_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  ucp_ep_h ep_ = nullptr;
  std::vector<std::byte> send_, recv_;
  WindowBuffers rx_;
  Batch one_, sends_, recvs_;
};

}  // namespace

std::unique_ptr<Driver> make_raw_ucx_driver(DriverEnv& env) {
  return std::make_unique<RawUcxDriver>(env);
}

}  // namespace commbench
