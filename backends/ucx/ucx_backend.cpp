#include "ucx/ucx_backend.hpp"

#include <algorithm>

#include "comm/address.hpp"
#include "comm/connect_retry.hpp"
#include "comm/errors.hpp"
#include "gpu/cuda_support.hpp"
#include "runtime/spawn.hpp"
#include "runtime/timeout.hpp"
#include "tcp/socket_util.hpp"
#include "ucx/ucx_comm.hpp"
#include "ucx/ucx_err_mode.hpp"
#include "ucx/ucx_fd_limit.hpp"
#include "ucx/ucx_handshake.hpp"
#include "ucx/ucx_worker.hpp"

namespace commbench::ucx {

namespace {

using namespace std::chrono_literals;
constexpr auto kHandshakeTimeout = 10s;

std::string ucx_uri(const sockaddr_storage& sa) {
  return "ucx://" + tcp::sockaddr_to_string(sa);
}

// The endpoint's own or peer socket address, or `fallback` when UCX cannot say.
std::string endpoint_address(ucp_ep_h ep, bool local, const std::string& fallback) {
  if (!ep) return fallback;
  ucp_ep_attr_t attr{};
  attr.field_mask = local ? UCP_EP_ATTR_FIELD_LOCAL_SOCKADDR : UCP_EP_ATTR_FIELD_REMOTE_SOCKADDR;
  if (ucp_ep_query(ep, &attr) != UCS_OK) return fallback;
  const sockaddr_storage& sa = local ? attr.local_sockaddr : attr.remote_sockaddr;
  if (sa.ss_family != AF_INET && sa.ss_family != AF_INET6) return fallback;
  return ucx_uri(sa);
}

std::string option(const BackendOptions& o, const char* key) {
  auto it = o.extra.find(key);
  return it == o.extra.end() ? "" : it->second;
}

void force_close(const std::shared_ptr<EndpointState>& st) {
  st->closing = true;
  st->force_close();
}

ucp_ep_params_t endpoint_params(const std::shared_ptr<EndpointState>& st) {
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
  // PEER: a peer that dies or resets surfaces as an error callback, and the requests
  // to it complete with an error instead of hanging.
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep.err_handler.cb = &EndpointState::on_error;
  ep.err_handler.arg = st.get();
  return ep;
}

// State shared by the listener object, its accept tasks and its UCX callback.
struct ListenState : std::enable_shared_from_this<ListenState> {
  std::shared_ptr<Worker> worker;  // control worker: the ucp_listener and its endpoints
  std::shared_ptr<Worker> data;
  CommLimits limits;
  PeerAuth auth;
  std::string address;  // as asked for; `contact` is what it became (the port bound)
  std::string contact;
  CommHandler handler;
  ucp_listener_h listener = nullptr;
  CancelSource stop;
  bool user = false;
  // Connection requests announced to on_conn whose accept task has not yet taken them.
  // An unanswered request pins a socket in the listener's connection manager, and
  // ucp_worker_destroy asserts on it: shut() rejects them all before the listener goes.
  std::vector<ucp_conn_request_h> pending;

  ListenState(std::shared_ptr<Worker> control, std::shared_ptr<Worker> d, std::string a,
              const CommLimits& l)
      : worker(std::move(control)), data(std::move(d)), limits(l), address(std::move(a)) {}
  ~ListenState() { shut(); }
  void shut() noexcept {
    stop.cancel();
    if (listener) {
      for (ucp_conn_request_h r : pending) ucp_listener_reject(listener, r);
      pending.clear();
      ucp_listener_destroy(listener);
      listener = nullptr;
    }
    if (user) {
      user = false;
      worker->remove_user();
    }
  }
  static void on_conn(ucp_conn_request_h request, void* arg);
  // Removes `request` from `pending`; false if shut() rejected it meanwhile.
  bool take(ucp_conn_request_h request) noexcept {
    auto it = std::find(pending.begin(), pending.end(), request);
    if (it == pending.end()) return false;
    *it = pending.back();
    pending.pop_back();
    return true;
  }
};

Task<void> accept_one(std::shared_ptr<ListenState> ls, ucp_conn_request_h request) {
  if (!ls->take(request)) co_return;  // rejected by shut()
  auto w = ls->worker;
  std::string peer = "ucx://?";
  ucp_conn_request_attr_t attr{};
  attr.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR;
  if (ucp_conn_request_query(request, &attr) == UCS_OK) peer = ucx_uri(attr.client_address);

  auto st = std::make_shared<EndpointState>();
  st->worker = w;
  st->data_worker = ls->data;
  ucp_ep_params_t ep = endpoint_params(st);
  ep.field_mask |= UCP_EP_PARAM_FIELD_CONN_REQUEST;
  ep.conn_request = request;
  if (ucp_ep_create(w->handle(), &ep, &st->ep) != UCS_OK) {
    ls->auth.count_rejected(Refusal::silent);  // gone before its hello
    co_return;
  }
  endpoint_created();
  uint64_t my_tag = ls->data->new_tag();
  PeerHello hello;
  try {
    std::string contact = ls->contact;
    EndpointState& s = *st;
    hello = co_await with_timeout(w->loop(), kHandshakeTimeout, [&](CancelToken t) {
      return exchange_hello(*w, s, my_tag, contact, ls->auth, false, ls->data->address(), t);
    });
    connect_data_endpoint(*ls->data, *st, hello);
  } catch (const std::exception&) {
    force_close(st);
    // wrong token, malformed hello, silence: dropped, counted by kind
    ls->auth.count_rejected(refusal_of(std::current_exception()));
    co_return;  // the listener goes on
  }
  std::string local = endpoint_address(st->ep, true, ls->contact);
  auto comm =
      std::make_unique<UcxComm>(ls->data, w, st, hello.tag, my_tag, local, peer, ls->limits);
  comm->set_peer_id(std::move(hello.id));
  co_await ls->handler(std::move(comm));
}

void ListenState::on_conn(ucp_conn_request_h request, void* arg) {
  auto* self = static_cast<ListenState*>(arg);
  // Near the descriptor limit: refused while UCX can still accept (ucx_fd_limit.cpp); the
  // connector sees "rejected by remote peer" and retries until its timeout.
  if (self->stop.cancelled() || descriptors_left() < kDescriptorReserve) {
    ucp_listener_reject(self->listener, request);
    return;
  }
  // Inside ucp_worker_progress: the endpoint is made on the next turn, in its own task.
  self->pending.push_back(request);
  spawn(self->worker->loop(), accept_one(self->shared_from_this(), request));
}

class UcxListener final : public Listener {
 public:
  UcxListener(std::shared_ptr<Worker> control, std::shared_ptr<Worker> data,
              const std::string& address, const CommLimits& limits, const PeerAuth& auth)
      : state_(
            std::make_shared<ListenState>(std::move(control), std::move(data), address, limits)) {
    state_->auth = auth;
  }
  ~UcxListener() override { stop(); }

  Task<void> start(CommHandler handler) override {
    auto& ls = *state_;
    HostPort hp = parse_host_port_uri(ls.address, "ucx");
    socklen_t len = 0;
    sockaddr_storage sa = tcp::resolve(hp, len);
    ls.handler = std::move(handler);
    ucp_listener_params_t lp{};
    lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
    lp.sockaddr.addr = reinterpret_cast<const sockaddr*>(&sa);
    lp.sockaddr.addrlen = len;
    lp.conn_handler.cb = &ListenState::on_conn;
    lp.conn_handler.arg = state_.get();
    ucs_status_t s = ucp_listener_create(ls.worker->handle(), &lp, &ls.listener);
    if (s != UCS_OK) {
      ls.listener = nullptr;
      std::string why = s == UCS_ERR_BUSY ? "address already in use" : ucs_status_string(s);
      throw CommError("cannot listen on " + ls.address + ": " + why);
    }
    ucp_listener_attr_t attr{};
    attr.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
    s = ucp_listener_query(ls.listener, &attr);
    if (s != UCS_OK) throw CommError(status_message("ucp_listener_query", s));
    uint16_t port = parse_host_port(tcp::sockaddr_to_string(attr.sockaddr)).port;
    ls.contact = "ucx://" + format_host_port(hp.host, port);
    ls.user = true;
    ls.worker->add_user();
    co_return;
  }

  void stop() noexcept override { state_->shut(); }
  std::string contact_address() const override { return state_->contact; }

 private:
  std::shared_ptr<ListenState> state_;
};

class UcxConnector final : public Connector {
 public:
  UcxConnector(std::shared_ptr<Worker> control, std::shared_ptr<Worker> data,
               const CommLimits& limits, const PeerAuth& auth)
      : worker_(std::move(control)), data_(std::move(data)), limits_(limits), auth_(auth) {}

  Task<std::unique_ptr<Comm>> connect(const std::string& address,
                                      std::chrono::nanoseconds timeout) override {
    HostPort hp = parse_host_port_uri(address, "ucx");
    socklen_t len = 0;
    sockaddr_storage sa = tcp::resolve(hp, len);
    co_return co_await connect_with_retry(
        worker_->loop(), address, timeout,
        [&](CancelToken t, std::string& why) { return attempt(address, sa, len, t, why); });
  }

 private:
  Task<std::unique_ptr<Comm>> attempt(std::string address, sockaddr_storage sa, socklen_t len,
                                      CancelToken token, std::string& why) {
    // Not retried: descriptors come back only when the user closes something.
    if (descriptors_left() < kDescriptorReserve)
      throw CommError(descriptor_limit_message("ucx connect to " + address));
    auto st = std::make_shared<EndpointState>();
    st->worker = worker_;
    st->data_worker = data_;
    ucp_ep_params_t ep = endpoint_params(st);
    ep.field_mask |= UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR;
    ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
    ep.sockaddr.addr = reinterpret_cast<const sockaddr*>(&sa);
    ep.sockaddr.addrlen = len;
    ucs_status_t s = ucp_ep_create(worker_->handle(), &ep, &st->ep);
    if (s != UCS_OK) {
      st->ep = nullptr;
      why = status_message("ucp_ep_create", s);
      co_return nullptr;
    }
    endpoint_created();
    uint64_t my_tag = data_->new_tag();
    try {
      PeerHello hello =
          co_await exchange_hello(*worker_, *st, my_tag, "", auth_, true, data_->address(), token);
      connect_data_endpoint(*data_, *st, hello);
      std::string local = endpoint_address(st->ep, true, "ucx://?");
      auto comm =
          std::make_unique<UcxComm>(data_, worker_, st, hello.tag, my_tag, local, address, limits_);
      comm->set_peer_id(std::move(hello.id));
      co_return comm;
    } catch (const OperationCancelled&) {
      force_close(st);
      throw;
    } catch (const ProtocolError&) {
      // A malformed or old-version answer is not transient: counted once and thrown, as
      // tcp does (a listener of another job never answers; it closes, a CommError).
      force_close(st);
      auth_.count_rejected(refusal_of(std::current_exception()));
      throw;
    } catch (const CommError& e) {
      force_close(st);
      why = e.what();
    }
    co_return nullptr;
  }

  std::shared_ptr<Worker> worker_;  // control
  std::shared_ptr<Worker> data_;
  CommLimits limits_;
  PeerAuth auth_;
};

class UcxBackend final : public Backend {
 public:
  UcxBackend(EventLoop& loop, const BackendOptions& options)
      : options_(options),
        worker_(std::make_shared<Worker>(loop, parse_progress(options.progress),
                                         parse_err_handling(option(options, kErrHandlingKey)))),
        control_(std::make_shared<Worker>(loop, Progress::control)) {}
  std::string scheme() const override { return "ucx"; }
  std::string progress() const override { return to_string(worker_->policy()); }
  std::unique_ptr<Listener> make_listener(const std::string& address) override {
    return std::make_unique<UcxListener>(control_, worker_, address, options_.limits,
                                         options_.auth);
  }
  std::unique_ptr<Connector> make_connector() override {
    return std::make_unique<UcxConnector>(control_, worker_, options_.limits, options_.auth);
  }
  std::string default_listen_address(const std::string& host) const override {
    return "ucx://" + format_host_port(host, 0);
  }
  // Device frames are never packed (ucx_comm.cpp's frame_packed), so a CUDA-enabled UCX
  // gets the device pointers themselves.
  bool accepts_device_memory() const override {
    return gpu::ucx_reports_cuda_support(worker_->context());
  }
  // Two per connection (its connection-manager and data endpoints, ucx_worker.hpp).
  BackendResources resources() const override {
    BackendResources r;
    r.ucx_endpoints = live_endpoints();
    return r;
  }

 private:
  BackendOptions options_;
  std::shared_ptr<Worker> worker_;  // data worker of this policy
  std::shared_ptr<Worker> control_;
};

}  // namespace

std::unique_ptr<Backend> make_ucx_backend(EventLoop& loop, const BackendOptions& options) {
  return std::make_unique<UcxBackend>(loop, options);
}

std::vector<SettingInfo> backend_settings() {
  return {err_handling_setting()};
}

}  // namespace commbench::ucx
