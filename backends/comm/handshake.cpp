#include "comm/handshake.hpp"

#include <string>

#include "comm/errors.hpp"
#include "comm/little_endian.hpp"

namespace commbench {

namespace {
constexpr size_t kTokenAt = 8;
constexpr size_t kIdLenAt = kTokenAt + kJobTokenBytes;
}  // namespace

std::vector<std::byte> encode_hello(const Hello& h) {
  if (h.name.size() > kMaxHelloName) throw ProtocolError("hello name too long");
  if (h.id.size() > kMaxPeerId) throw ProtocolError("hello identity too long");
  std::vector<std::byte> out(kHelloFixedBytes + h.name.size() + h.id.size());
  le::store<uint32_t>(out.data(), kHelloMagic);
  le::store(&out[4], h.version, 2);
  le::store(&out[6], h.name.size(), 2);
  for (size_t i = 0; i < kJobTokenBytes; ++i) out[kTokenAt + i] = h.token[i];
  le::store(&out[kIdLenAt], h.id.size(), 2);
  le::store(&out[kIdLenAt + 2], 0, 2);
  for (size_t i = 0; i < h.name.size(); ++i)
    out[kHelloFixedBytes + i] = static_cast<std::byte>(h.name[i]);
  for (size_t i = 0; i < h.id.size(); ++i)
    out[kHelloFixedBytes + h.name.size() + i] = static_cast<std::byte>(h.id[i]);
  return out;
}

void check_hello_prefix(std::span<const std::byte> fixed) {
  if (fixed.size() < kHelloPrefixBytes) throw ProtocolError("truncated handshake");
  if (le::load<uint32_t>(fixed.data()) != kHelloMagic)
    throw ProtocolError("bad handshake magic (not a commbench peer?)");
  auto version = static_cast<uint16_t>(le::load(&fixed[4], 2));
  if (version != kHelloVersion)
    throw ProtocolError("peer speaks handshake version " + std::to_string(version) +
                        ", this build speaks " + std::to_string(kHelloVersion));
}

size_t decode_hello_fixed(std::span<const std::byte> fixed) {
  check_hello_prefix(fixed);
  if (fixed.size() < kHelloFixedBytes) throw ProtocolError("truncated handshake");
  size_t name_len = le::load(&fixed[6], 2);
  if (name_len > kMaxHelloName) throw ProtocolError("handshake name too long");
  size_t id_len = le::load(&fixed[kIdLenAt], 2);
  if (id_len > kMaxPeerId) throw ProtocolError("handshake identity too long");
  if (le::load(&fixed[kIdLenAt + 2], 2) != 0)
    throw ProtocolError("handshake reserved field not zero");
  return name_len + id_len;
}

Hello decode_hello(std::span<const std::byte> bytes) {
  size_t len = decode_hello_fixed(bytes);
  if (bytes.size() != kHelloFixedBytes + len) throw ProtocolError("handshake length mismatch");
  size_t name_len = le::load(&bytes[6], 2);
  Hello h;
  for (size_t i = 0; i < kJobTokenBytes; ++i) h.token[i] = bytes[kTokenAt + i];
  h.name.resize(name_len);
  for (size_t i = 0; i < name_len; ++i) h.name[i] = static_cast<char>(bytes[kHelloFixedBytes + i]);
  h.id.resize(len - name_len);
  for (size_t i = 0; i < h.id.size(); ++i)
    h.id[i] = static_cast<char>(bytes[kHelloFixedBytes + name_len + i]);
  return h;
}

StagedHelloRead::StagedHelloRead(size_t prefix_bytes, size_t fixed_bytes, CheckPrefix check_prefix,
                                 RestAfterFixed rest_after_fixed)
    : prefix_(prefix_bytes),
      fixed_(fixed_bytes),
      check_prefix_(check_prefix),
      rest_after_fixed_(rest_after_fixed) {}

std::span<std::byte> StagedHelloRead::next() {
  switch (step_++) {
    case 0:
      bytes_.resize(fixed_);
      return std::span(bytes_).first(prefix_);
    case 1:
      check_prefix_(std::span(bytes_).first(prefix_));
      return std::span(bytes_).subspan(prefix_);
    case 2: {
      size_t rest = rest_after_fixed_(bytes_);
      bytes_.resize(fixed_ + rest);
      return std::span(bytes_).subspan(fixed_);
    }
    default:
      step_ = 3;
      return {};
  }
}

}  // namespace commbench
