#include "mpi/mpi_control_wire.hpp"

#include <algorithm>
#include <cstring>

namespace commbench::mpi {

ReadRequest decode_connect_request(std::span<const std::byte> msg) noexcept {
  ReadRequest r;
  if (!msg.empty()) std::memcpy(&r.req, msg.data(), std::min(sizeof r.req, msg.size()));
  r.well_formed = msg.size() == sizeof r.req && r.req.magic == ConnectRequest::kMagic &&
                  r.req.version == ConnectRequest::kVersion && r.req.id_len <= kMaxPeerId;
  return r;
}

std::optional<ConnectReply> decode_connect_reply(std::span<const std::byte> msg, uint64_t nonce,
                                                 int max_lane) noexcept {
  ConnectReply rep;
  if (msg.size() != sizeof rep) return std::nullopt;
  std::memcpy(&rep, msg.data(), sizeof rep);
  if (rep.magic != ConnectReply::kMagic || rep.nonce != nonce || rep.id_len > kMaxPeerId)
    return std::nullopt;
  if (rep.status == 0 && (rep.lane < 0 || rep.lane > max_lane)) return std::nullopt;
  return rep;
}

std::optional<CloseNotice> decode_close_notice(std::span<const std::byte> msg) noexcept {
  CloseNotice n;
  if (msg.size() != sizeof n) return std::nullopt;
  std::memcpy(&n, msg.data(), sizeof n);
  if (n.magic != CloseNotice::kMagic) return std::nullopt;
  return n;
}

}  // namespace commbench::mpi
