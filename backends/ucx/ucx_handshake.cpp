#include "ucx/ucx_handshake.hpp"

#include <vector>

#include "comm/errors.hpp"

namespace commbench::ucx {

namespace {

// Closing the endpoint is the only way to make UCP give up a stream operation.
void close_endpoint(void* arg, void*) {
  auto* ep = static_cast<EndpointState*>(arg);
  ep->failed = true;
  ep->force_close();
}

[[noreturn]] void fail(EndpointState& ep, ucs_status_t status, CancelToken token) {
  if (token.cancelled()) token.throw_cancelled("ucx handshake");
  if (ep.error != UCS_OK) status = ep.error;
  throw CommClosedError(status_message("ucx handshake", status));
}

Task<void> stream_recv(Worker& w, EndpointState& ep, std::byte* out, size_t n, CancelToken token) {
  if (!ep.ep) fail(ep, UCS_ERR_CONNECTION_RESET, token);
  Op op;
  size_t length = 0;
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_RECV_INFO;
  p.cb.recv_stream = &Op::on_stream_recv;
  p.user_data = &op;
  p.flags = UCP_STREAM_RECV_FLAG_WAITALL;
  p.recv_info.length = &length;
  void* r = ucp_stream_recv_nbx(ep.ep, out, n, &length, &p);
  if (r == nullptr) co_return;
  if (UCS_PTR_IS_ERR(r)) fail(ep, UCS_PTR_STATUS(r), token);
  op.request = r;
  while (!co_await w.wait(op, token, CancelHook{&close_endpoint, &ep})) {
  }
  if (op.status != UCS_OK) fail(ep, op.status, token);
}

}  // namespace

namespace {

// Posts the send of `out`; null when it completed at once.
void* post_send(EndpointState& ep, const std::vector<std::byte>& out, Op& send, CancelToken token) {
  if (!ep.ep) fail(ep, UCS_ERR_CONNECTION_RESET, token);
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = &Op::on_send;
  p.user_data = &send;
  void* r = ucp_stream_send_nbx(ep.ep, out.data(), out.size(), &p);
  if (UCS_PTR_IS_ERR(r)) fail(ep, UCS_PTR_STATUS(r), token);
  send.request = r;
  return r;
}

Task<PeerHello> read_hello(Worker& w, EndpointState& ep, const PeerAuth& auth, CancelToken token) {
  StagedHelloRead hello(kPeerHelloPrefixBytes, kPeerHelloFixedBytes, check_peer_hello_prefix,
                        decode_peer_hello_fixed);
  for (auto s = hello.next(); !s.empty(); s = hello.next())
    co_await stream_recv(w, ep, s.data(), s.size(), token);
  PeerHello peer = decode_peer_hello(hello.whole());
  auth.check_token(peer.token, "ucx handshake");
  co_return peer;
}

}  // namespace

Task<PeerHello> exchange_hello(Worker& w, EndpointState& ep, uint64_t my_tag,
                               const std::string& my_name, const PeerAuth& auth, bool speak_first,
                               const std::vector<std::byte>& address, CancelToken token) {
  PeerHello mine;
  mine.tag = my_tag;
  mine.name = my_name;
  mine.id = auth.self_id;
  mine.token = auth.token;
  mine.address = address;
  std::vector<std::byte> out = encode_peer_hello(mine);

  Op send;
  void* r = nullptr;
  PeerHello peer;
  std::exception_ptr error;
  try {
    if (speak_first) r = post_send(ep, out, send, token);
    peer = co_await read_hello(w, ep, auth, token);
    // The listener answers only a hello with the job's token.
    if (!speak_first) r = post_send(ep, out, send, token);
  } catch (...) {
    error = std::current_exception();
    close_endpoint(&ep, nullptr);  // also ends our send, so its wait below returns
  }
  if (r != nullptr) {
    while (!co_await w.wait(send, token, CancelHook{&close_endpoint, &ep})) {
    }
    if (!error && send.status != UCS_OK) {
      close_endpoint(&ep, nullptr);
      fail(ep, send.status, token);
    }
  }
  if (error) std::rethrow_exception(error);
  co_return peer;
}

void connect_data_endpoint(Worker& w, EndpointState& ep, const PeerHello& peer) {
  ucp_ep_params_t p{};
  p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  p.address = reinterpret_cast<const ucp_address_t*>(peer.address.data());
  p.err_mode = w.data_err_mode();  // ucx_err_mode.hpp: NONE unless ucx_err_handling=peer
  ucs_status_t s = ucp_ep_create(w.handle(), &p, &ep.data);
  if (s != UCS_OK) {
    ep.data = nullptr;
    throw CommClosedError(status_message("ucx data endpoint", s));
  }
  endpoint_created();
}

}  // namespace commbench::ucx
