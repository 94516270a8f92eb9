// raw-ucx: context, worker and endpoint, set up and torn down outside the timed loops.
#include "drivers/raw_ucx_driver.hpp"

#include <memory>
#include <string_view>

#include "comm/errors.hpp"
#include "ucx/ucx_lanes.hpp"

namespace commbench {

namespace {

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

}  // namespace

void raw_ucx::fail(ucs_status_t s, const char* what) {
  throw CommError(std::string("raw-ucx ") + what + ": " + ucs_status_string(s));
}

std::vector<std::string> RawUcxDriver::transports() const {
  return ucx::endpoint_transports(ep_);
}

RawUcxDriver::RawUcxDriver(DriverEnv& env, const RawVariant& variant)
    : RawDriver(kBaseline, variant, env), sleeps_(std::string_view(variant.name) == "sleep") {}

void RawUcxDriver::connect() {
  using raw_ucx::check;
  int rank = env_.boot.rank();
  std::string mine;
  if (rank <= 1) {
    ucp_config_t* config = nullptr;
    check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_TAG | (sleeps_ ? UCP_FEATURE_WAKEUP : 0);
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

void RawUcxDriver::close() {
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

}  // namespace commbench
