// The versioned hello that both ends of a new connection exchange before any message.
//
// Layout (little endian), version 2:
//   u32 magic 'CBHS' | u16 version | u16 name length | u8[16] job token |
//   u16 id length | u16 reserved (0) | name bytes | id bytes
// `name` is the sender's own contact address (so a listener learns who connected); `token`
// is the job's secret (comm/peer_auth.hpp) and `id` the sender's identity in the job
// ("rank 0"). Version 1 had no token and no id: such a peer is refused as "version 1".
// The decoder bounds name and id (kMaxHelloName, kMaxPeerId) before reading them: a
// hostile peer cannot make us allocate or read beyond what it announces and the limits
// allow. Checking the token and the identity is the caller's (verify_hello).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/peer_auth.hpp"

namespace commbench {

constexpr uint32_t kHelloMagic = 0x53484243;  // "CBHS"
constexpr uint16_t kHelloVersion = 2;
constexpr size_t kHelloFixedBytes = 8 + kJobTokenBytes + 4;  // 28
constexpr size_t kMaxHelloName = 1024;

struct Hello {
  uint16_t version = kHelloVersion;
  std::string name;
  JobToken token{};
  std::string id;
};

// Throws ProtocolError when name or id exceed their limits.
std::vector<std::byte> encode_hello(const Hello& h);
// Checks the magic and version in the first kHelloPrefixBytes (the part every version
// shares): a reader takes these first, so a version-1 peer, whose whole fixed part is that
// long, is told the versions instead of waiting for bytes it never sends.
constexpr size_t kHelloPrefixBytes = 8;
void check_hello_prefix(std::span<const std::byte> prefix);
// Checks the fixed part and returns the number of bytes that follow it (name + id).
size_t decode_hello_fixed(std::span<const std::byte> fixed);
// Decodes a complete hello (fixed part + name + id). Throws ProtocolError.
Hello decode_hello(std::span<const std::byte> bytes);

// A hello read in the three steps that keep a peer from making us wait or allocate: its
// prefix (magic and version: an older peer is told the versions instead of waiting for
// bytes it never sends), then its fixed part (the lengths checked before anything is
// allocated), then the rest. Any reader drives it, blocking or not:
//   for (auto s = r.next(); !s.empty(); s = r.next()) read exactly s.size() bytes into s;
// then r.whole() is the hello. next() throws ProtocolError where a check fails.
class StagedHelloRead {
 public:
  using CheckPrefix = void (*)(std::span<const std::byte>);
  using RestAfterFixed = size_t (*)(std::span<const std::byte>);
  StagedHelloRead(size_t prefix_bytes, size_t fixed_bytes, CheckPrefix check_prefix,
                  RestAfterFixed rest_after_fixed);
  // The common hello above (tcp, raw-tcp); ucx's wraps it (ucx/ucx_hello.hpp).
  StagedHelloRead()
      : StagedHelloRead(kHelloPrefixBytes, kHelloFixedBytes, check_hello_prefix,
                        decode_hello_fixed) {}

  std::span<std::byte> next();
  std::span<const std::byte> whole() const { return bytes_; }

 private:
  size_t prefix_, fixed_;
  CheckPrefix check_prefix_;
  RestAfterFixed rest_after_fixed_;
  int step_ = 0;
  std::vector<std::byte> bytes_;
};

// The hello this end sends under `auth`.
inline Hello make_hello(const std::string& name, const PeerAuth& auth) {
  return Hello{kHelloVersion, name, auth.token, auth.self_id};
}
// Throws ProtocolError unless `theirs` carries the job's token (the caller counts it). `where`
// names the backend in the message ("tcp handshake").
inline void verify_hello(const Hello& theirs, const PeerAuth& auth, const char* where) {
  auth.check_token(theirs.token, where);
}

}  // namespace commbench
