// The bytes of the UCX hello, apart from the endpoint that carries them (ucx_handshake.hpp)
// so the decoder can be tested and fuzzed without UCX (tests/fuzz/ucx_hello_fuzz.cpp).
// Layout (little endian):
//   u32 magic 'CBUX' | u16 version | u16 worker address length | u64 tag to send to me
// followed by the common hello (comm/handshake.hpp: version, the sender's own name, the
// job token and its identity) and the sender's worker address (for the data endpoint, see
// EndpointState). Version 2: the common hello v2 (token and identity).
// The receiver reads it in steps, as the stream API requires: the prefix (a version-1
// peer's fixed part is no longer, so it is told the versions instead of waiting for bytes
// it never sends), the fixed part, whose lengths are checked against the limits before
// anything else is read or allocated, then exactly the announced rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/handshake.hpp"

namespace commbench::ucx {

constexpr uint32_t kUcxHelloMagic = 0x58554243;  // "CBUX"
constexpr uint16_t kUcxHelloVersion = 2;         // 2: connector first, common hello v2
// The UCX part alone, and what the first read takes (the UCX part + the common fixed part).
constexpr size_t kUcxHelloBytes = 16;
constexpr size_t kPeerHelloFixedBytes = kUcxHelloBytes + kHelloFixedBytes;
constexpr size_t kPeerHelloPrefixBytes = kUcxHelloBytes + kHelloPrefixBytes;
// UCP worker addresses are a few hundred bytes; the bound keeps a peer from making us
// allocate what it announces.
constexpr size_t kMaxWorkerAddress = 16384;

struct PeerHello {
  uint64_t tag = 0;                // the tag this side sends with
  std::string name;                // the peer's own contact address
  std::string id;                  // the identity its hello claimed (Comm::peer_id)
  JobToken token{};                // the job token it presented (checked by the caller)
  std::vector<std::byte> address;  // the peer's worker address
};

// Throws ProtocolError for an empty or too long address or a too long name: what the
// decoder refuses is never sent.
std::vector<std::byte> encode_peer_hello(const PeerHello& h);
// Checks the first kPeerHelloPrefixBytes: magic and both versions. Throws ProtocolError.
void check_peer_hello_prefix(std::span<const std::byte> prefix);
// Checks the first kPeerHelloFixedBytes and returns how many bytes follow (name + id + address),
// at most kMaxHelloName + kMaxPeerId + kMaxWorkerAddress. Throws ProtocolError.
size_t decode_peer_hello_fixed(std::span<const std::byte> fixed);
// Decodes a whole hello (fixed part + the rest, nothing more). Throws ProtocolError.
PeerHello decode_peer_hello(std::span<const std::byte> bytes);

}  // namespace commbench::ucx
