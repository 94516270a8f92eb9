#include "ucx/ucx_hello.hpp"

#include <string>

#include "comm/errors.hpp"
#include "comm/little_endian.hpp"

namespace commbench::ucx {

std::vector<std::byte> encode_peer_hello(const PeerHello& h) {
  if (h.address.empty() || h.address.size() > kMaxWorkerAddress)
    throw ProtocolError("ucx: worker address of " + std::to_string(h.address.size()) +
                        " bytes (1.." + std::to_string(kMaxWorkerAddress) + " allowed)");
  std::vector<std::byte> out(kUcxHelloBytes);
  le::store(out.data(), kUcxHelloMagic, 4);
  le::store(out.data() + 4, kUcxHelloVersion, 2);
  le::store(out.data() + 6, h.address.size(), 2);
  le::store(out.data() + 8, h.tag, 8);
  auto hello = encode_hello(Hello{kHelloVersion, h.name, h.token, h.id});  // bounds name, id
  out.insert(out.end(), hello.begin(), hello.end());
  out.insert(out.end(), h.address.begin(), h.address.end());
  return out;
}

void check_peer_hello_prefix(std::span<const std::byte> prefix) {
  if (prefix.size() < kPeerHelloPrefixBytes) throw ProtocolError("ucx handshake: truncated");
  if (le::load(prefix.data(), 4) != kUcxHelloMagic) throw ProtocolError("ucx handshake: bad magic");
  if (le::load(prefix.data() + 4, 2) != kUcxHelloVersion)
    throw ProtocolError("ucx handshake: peer speaks version " +
                        std::to_string(le::load(prefix.data() + 4, 2)) + ", this build speaks " +
                        std::to_string(kUcxHelloVersion));
  check_hello_prefix(prefix.subspan(kUcxHelloBytes, kHelloPrefixBytes));
}

size_t decode_peer_hello_fixed(std::span<const std::byte> fixed) {
  if (fixed.size() < kPeerHelloFixedBytes) throw ProtocolError("ucx handshake: truncated");
  check_peer_hello_prefix(fixed);
  size_t addr_len = le::load(fixed.data() + 6, 2);
  if (addr_len == 0 || addr_len > kMaxWorkerAddress)
    throw ProtocolError("ucx handshake: bad worker address length");
  return decode_hello_fixed(fixed.subspan(kUcxHelloBytes, kHelloFixedBytes)) + addr_len;
}

PeerHello decode_peer_hello(std::span<const std::byte> bytes) {
  size_t rest = decode_peer_hello_fixed(bytes);
  if (bytes.size() != kPeerHelloFixedBytes + rest)
    throw ProtocolError("ucx handshake: length mismatch");
  size_t addr_len = le::load(bytes.data() + 6, 2);
  PeerHello peer;
  peer.tag = le::load(bytes.data() + 8, 8);
  Hello common =
      decode_hello(bytes.subspan(kUcxHelloBytes, bytes.size() - kUcxHelloBytes - addr_len));
  peer.name = std::move(common.name);
  peer.id = std::move(common.id);
  peer.token = common.token;
  auto addr = bytes.last(addr_len);
  peer.address.assign(addr.begin(), addr.end());
  return peer;
}

}  // namespace commbench::ucx
