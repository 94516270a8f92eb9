#include "comm/handshake.hpp"

#include <string>

#include "comm/errors.hpp"

namespace commbench {

std::vector<std::byte> encode_hello(const Hello& h) {
  if (h.name.size() > kMaxHelloName) throw ProtocolError("hello name too long");
  std::vector<std::byte> out(kHelloFixedBytes + h.name.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<std::byte>(kHelloMagic >> (8 * i));
  out[4] = static_cast<std::byte>(h.version & 0xff);
  out[5] = static_cast<std::byte>(h.version >> 8);
  out[6] = static_cast<std::byte>(h.name.size() & 0xff);
  out[7] = static_cast<std::byte>(h.name.size() >> 8);
  for (size_t i = 0; i < h.name.size(); ++i) out[kHelloFixedBytes + i] = static_cast<std::byte>(h.name[i]);
  return out;
}

size_t decode_hello_fixed(std::span<const std::byte> fixed) {
  if (fixed.size() < kHelloFixedBytes) throw ProtocolError("truncated handshake");
  uint32_t magic = 0;
  for (int i = 0; i < 4; ++i) magic |= static_cast<uint32_t>(fixed[i]) << (8 * i);
  if (magic != kHelloMagic) throw ProtocolError("bad handshake magic (not a commbench peer?)");
  auto version = static_cast<uint16_t>(static_cast<uint16_t>(fixed[4]) |
                                       (static_cast<uint16_t>(fixed[5]) << 8));
  if (version != kHelloVersion)
    throw ProtocolError("peer speaks handshake version " + std::to_string(version) +
                        ", this build speaks " + std::to_string(kHelloVersion));
  size_t len = static_cast<size_t>(fixed[6]) | (static_cast<size_t>(fixed[7]) << 8);
  if (len > kMaxHelloName) throw ProtocolError("handshake name too long");
  return len;
}

Hello decode_hello(std::span<const std::byte> bytes) {
  size_t len = decode_hello_fixed(bytes);
  if (bytes.size() != kHelloFixedBytes + len) throw ProtocolError("handshake length mismatch");
  Hello h;
  h.name.resize(len);
  for (size_t i = 0; i < len; ++i) h.name[i] = static_cast<char>(bytes[kHelloFixedBytes + i]);
  return h;
}

}  // namespace commbench
