#include "ucx/ucx_handshake.hpp"

#include <vector>

#include "comm/errors.hpp"
#include "comm/handshake.hpp"

namespace commbench::ucx {

namespace {

constexpr uint32_t kUcxHelloMagic = 0x58554243;  // "CBUX"
constexpr uint16_t kUcxHelloVersion = 1;
constexpr size_t kUcxHelloBytes = 16;
constexpr size_t kMaxWorkerAddress = 16384;

void put(std::byte* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
uint64_t get(const std::byte* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

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

Task<void> stream_recv(Worker& w, EndpointState& ep, std::byte* out, size_t n,
                       CancelToken token) {
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

Task<PeerHello> exchange_hello(Worker& w, EndpointState& ep, uint64_t my_tag,
                               const std::string& my_name,
                               const std::vector<std::byte>& address, CancelToken token) {
  if (address.size() > kMaxWorkerAddress) throw ProtocolError("ucx: worker address too long");
  std::vector<std::byte> out(kUcxHelloBytes);
  put(out.data(), kUcxHelloMagic, 4);
  put(out.data() + 4, kUcxHelloVersion, 2);
  put(out.data() + 6, address.size(), 2);
  put(out.data() + 8, my_tag, 8);
  auto hello = encode_hello(Hello{kHelloVersion, my_name});
  out.insert(out.end(), hello.begin(), hello.end());
  out.insert(out.end(), address.begin(), address.end());

  if (!ep.ep) fail(ep, UCS_ERR_CONNECTION_RESET, token);
  Op send;
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = &Op::on_send;
  p.user_data = &send;
  void* r = ucp_stream_send_nbx(ep.ep, out.data(), out.size(), &p);
  if (UCS_PTR_IS_ERR(r)) fail(ep, UCS_PTR_STATUS(r), token);
  send.request = r;

  PeerHello peer;
  std::exception_ptr error;
  try {
    std::byte fixed[kUcxHelloBytes + kHelloFixedBytes];
    co_await stream_recv(w, ep, fixed, sizeof fixed, token);
    if (get(fixed, 4) != kUcxHelloMagic) throw ProtocolError("ucx handshake: bad magic");
    if (get(fixed + 4, 2) != kUcxHelloVersion)
      throw ProtocolError("ucx handshake: peer speaks version " +
                          std::to_string(get(fixed + 4, 2)) + ", this build speaks " +
                          std::to_string(kUcxHelloVersion));
    peer.tag = get(fixed + 8, 8);
    size_t addr_len = get(fixed + 6, 2);
    if (addr_len == 0 || addr_len > kMaxWorkerAddress)
      throw ProtocolError("ucx handshake: bad worker address length");
    size_t len = decode_hello_fixed({fixed + kUcxHelloBytes, kHelloFixedBytes});
    std::vector<std::byte> whole(kHelloFixedBytes + len + addr_len);
    std::copy(fixed + kUcxHelloBytes, fixed + sizeof fixed, whole.begin());
    co_await stream_recv(w, ep, whole.data() + kHelloFixedBytes, len + addr_len, token);
    peer.address.assign(whole.end() - static_cast<std::ptrdiff_t>(addr_len), whole.end());
    whole.resize(kHelloFixedBytes + len);
    peer.name = decode_hello(whole).name;
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
}

}  // namespace commbench::ucx
