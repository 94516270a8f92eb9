#include "comm/handshake.hpp"

#include <string>

#include "comm/errors.hpp"

namespace commbench {

namespace {
void put16(std::byte* p, size_t v) {
  p[0] = static_cast<std::byte>(v & 0xff);
  p[1] = static_cast<std::byte>((v >> 8) & 0xff);
}
size_t get16(const std::byte* p) {
  return static_cast<size_t>(p[0]) | (static_cast<size_t>(p[1]) << 8);
}
constexpr size_t kTokenAt = 8;
constexpr size_t kIdLenAt = kTokenAt + kJobTokenBytes;
}  // namespace

std::vector<std::byte> encode_hello(const Hello& h) {
  if (h.name.size() > kMaxHelloName) throw ProtocolError("hello name too long");
  if (h.id.size() > kMaxPeerId) throw ProtocolError("hello identity too long");
  std::vector<std::byte> out(kHelloFixedBytes + h.name.size() + h.id.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<std::byte>(kHelloMagic >> (8 * i));
  put16(&out[4], h.version);
  put16(&out[6], h.name.size());
  for (size_t i = 0; i < kJobTokenBytes; ++i) out[kTokenAt + i] = h.token[i];
  put16(&out[kIdLenAt], h.id.size());
  put16(&out[kIdLenAt + 2], 0);
  for (size_t i = 0; i < h.name.size(); ++i)
    out[kHelloFixedBytes + i] = static_cast<std::byte>(h.name[i]);
  for (size_t i = 0; i < h.id.size(); ++i)
    out[kHelloFixedBytes + h.name.size() + i] = static_cast<std::byte>(h.id[i]);
  return out;
}

void check_hello_prefix(std::span<const std::byte> fixed) {
  if (fixed.size() < kHelloPrefixBytes) throw ProtocolError("truncated handshake");
  uint32_t magic = 0;
  for (int i = 0; i < 4; ++i) magic |= static_cast<uint32_t>(fixed[i]) << (8 * i);
  if (magic != kHelloMagic) throw ProtocolError("bad handshake magic (not a commbench peer?)");
  auto version = static_cast<uint16_t>(get16(&fixed[4]));
  if (version != kHelloVersion)
    throw ProtocolError("peer speaks handshake version " + std::to_string(version) +
                        ", this build speaks " + std::to_string(kHelloVersion));
}

size_t decode_hello_fixed(std::span<const std::byte> fixed) {
  check_hello_prefix(fixed);
  if (fixed.size() < kHelloFixedBytes) throw ProtocolError("truncated handshake");
  size_t name_len = get16(&fixed[6]);
  if (name_len > kMaxHelloName) throw ProtocolError("handshake name too long");
  size_t id_len = get16(&fixed[kIdLenAt]);
  if (id_len > kMaxPeerId) throw ProtocolError("handshake identity too long");
  if (get16(&fixed[kIdLenAt + 2]) != 0) throw ProtocolError("handshake reserved field not zero");
  return name_len + id_len;
}

Hello decode_hello(std::span<const std::byte> bytes) {
  size_t len = decode_hello_fixed(bytes);
  if (bytes.size() != kHelloFixedBytes + len) throw ProtocolError("handshake length mismatch");
  size_t name_len = get16(&bytes[6]);
  Hello h;
  for (size_t i = 0; i < kJobTokenBytes; ++i) h.token[i] = bytes[kTokenAt + i];
  h.name.resize(name_len);
  for (size_t i = 0; i < name_len; ++i) h.name[i] = static_cast<char>(bytes[kHelloFixedBytes + i]);
  h.id.resize(len - name_len);
  for (size_t i = 0; i < h.id.size(); ++i)
    h.id[i] = static_cast<char>(bytes[kHelloFixedBytes + name_len + i]);
  return h;
}

}  // namespace commbench
