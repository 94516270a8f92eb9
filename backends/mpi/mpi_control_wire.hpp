// The messages of the MPI control channel (mpi_control.hpp) and their decoders, apart
// from MPI so they can be tested and fuzzed without it (tests/fuzz/mpi_control_fuzz.cpp).
// Same-architecture peers: each message is its struct's bytes (plain memcpy). Every
// decoder reads only the bytes it is given and accepts only exactly one whole message
// with the right magic (and version): whatever a peer sends, the worst it gets is a
// refusal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "comm/peer_auth.hpp"

namespace commbench::mpi {

// Version 2 carries the job token and the connector's identity (comm/peer_auth.hpp): a
// listener refuses a request with another job's token (status 3) and counts it.
struct ConnectRequest {
  static constexpr uint32_t kMagic = 0x514d4243;  // "CBMQ"
  static constexpr uint16_t kVersion = 2;
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  uint16_t reply_lane = 0;  // lane + 1 the connector receives on (0: none, use reply_tag)
  int32_t service = 0;
  int32_t reply_tag = 0;  // the connector's incoming tag; the reply comes on it
  uint64_t nonce = 0;
  JobToken token{};
  uint16_t id_len = 0;  // bytes of `id` used (<= kMaxPeerId)
  char id[kMaxPeerId] = {};
  char reserved[6] = {};  // explicit tail: no padding, so a message is exactly its bytes
};
static_assert(sizeof(ConnectRequest) <= 128,
              "ConnectRequest outgrew ControlChannel::kControlBytes");
// tests/fuzz/make_seeds.py writes these layouts byte by byte.
static_assert(sizeof(ConnectRequest) == 112);
struct ConnectReply {
  static constexpr uint32_t kMagic = 0x524d4243;  // "CBMR"
  uint32_t magic = kMagic;
  int32_t status = 0;  // 0 accepted, 1 no listener on that service, 2 bad request,
                       // 3 wrong job token, 4 the listener's rank is out of tags
  int32_t tag = 0;     // the listener end's incoming tag
  int32_t lane = 0;    // lane + 1 the listener end receives on (0: none)
  uint64_t nonce = 0;
  uint16_t id_len = 0;  // the listener's identity (Comm::peer_id), as in the request
  char id[kMaxPeerId] = {};
  char reserved[6] = {};  // explicit tail, as in ConnectRequest
};
static_assert(sizeof(ConnectReply) == 96);
struct CloseNotice {
  static constexpr uint32_t kMagic = 0x4e4d4243;  // "CBMN"
  uint32_t magic = kMagic;
  int32_t tag = 0;  // the receiver's incoming tag
  uint64_t sent = 0;
};

// The listener's reading of a connect request. `req` holds the fields that arrived over
// the defaults (a short or long request still names the tag and nonce to refuse it
// with); well_formed: exactly one ConnectRequest of this magic and version.
struct ReadRequest {
  ConnectRequest req;
  bool well_formed = false;
};
ReadRequest decode_connect_request(std::span<const std::byte> msg) noexcept;

// The connector's reading of the reply to its request `nonce`: nullopt unless it is
// exactly one ConnectReply with the magic, that nonce and an identity within kMaxPeerId,
// and, when it accepts
// (status 0), names a lane in 0..max_lane (lane + 1, 0 = none).
std::optional<ConnectReply> decode_connect_reply(std::span<const std::byte> msg, uint64_t nonce,
                                                 int max_lane) noexcept;

// A close notice, or nullopt (not exactly one CloseNotice with the magic: ignored).
std::optional<CloseNotice> decode_close_notice(std::span<const std::byte> msg) noexcept;

}  // namespace commbench::mpi
