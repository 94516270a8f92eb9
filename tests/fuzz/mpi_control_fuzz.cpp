// libFuzzer target: the MPI backend's connection protocol (backends/mpi/
// mpi_control_wire.hpp): the connect request a listener rank receives, the reply a
// connector receives, and the close notice. No MPI is needed: the decoders are pure.
// The first input byte picks the decoder (and, for the reply, the next 8 the nonce the
// connector expects); the rest is the received message. Properties, under ASan/UBSan:
//  - nothing is read beyond the message, nothing is allocated;
//  - a message is accepted if and only if it is exactly one struct with the magic (and
//    version; for a reply: the expected nonce and, when accepting, a lane in range), and
//    what is accepted is the message's bytes unchanged;
//  - a connect request's fields are whatever part of them arrived, the rest defaults.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fuzz_alloc.hpp"
#include "fuzz_check.hpp"
#include "mpi/mpi_control_wire.hpp"

using namespace commbench::mpi;
using commbench::fuzz::check;

namespace {

// The byte comparisons below need structs without padding.
static_assert(std::has_unique_object_representations_v<ConnectRequest>);
static_assert(std::has_unique_object_representations_v<ConnectReply>);
static_assert(std::has_unique_object_representations_v<CloseNotice>);

constexpr int kMaxLane = 8;

template <class T>
bool same_bytes(const T& v, std::span<const std::byte> msg) {
  return msg.size() == sizeof v && std::memcmp(&v, msg.data(), sizeof v) == 0;
}

template <class T>
T read_prefix(std::span<const std::byte> msg) {
  T v;
  std::memcpy(&v, msg.data(), std::min(sizeof v, msg.size()));
  return v;
}

void request(std::span<const std::byte> msg) {
  size_t allocated = 0;
  ReadRequest r =
      commbench::fuzz::measure_allocations(allocated, [&] { return decode_connect_request(msg); });
  check(allocated == 0);
  // The prefix that arrived, over a default request.
  ConnectRequest expect;
  if (!msg.empty()) std::memcpy(&expect, msg.data(), std::min(sizeof expect, msg.size()));
  check(std::memcmp(&r.req, &expect, sizeof expect) == 0);
  const bool valid =
      msg.size() == sizeof(ConnectRequest) && expect.magic == ConnectRequest::kMagic &&
      expect.version == ConnectRequest::kVersion && expect.id_len <= commbench::kMaxPeerId;
  check(r.well_formed == valid);
  if (r.well_formed) check(same_bytes(r.req, msg));
}

void reply(uint64_t nonce, std::span<const std::byte> msg) {
  size_t allocated = 0;
  std::optional<ConnectReply> rep = commbench::fuzz::measure_allocations(
      allocated, [&] { return decode_connect_reply(msg, nonce, kMaxLane); });
  check(allocated == 0);
  bool valid = msg.size() == sizeof(ConnectReply);
  if (valid) {
    auto v = read_prefix<ConnectReply>(msg);
    valid = v.magic == ConnectReply::kMagic && v.nonce == nonce &&
            v.id_len <= commbench::kMaxPeerId &&
            (v.status != 0 || (v.lane >= 0 && v.lane <= kMaxLane));
  }
  check(rep.has_value() == valid);
  if (rep) check(same_bytes(*rep, msg));
}

void notice(std::span<const std::byte> msg) {
  size_t allocated = 0;
  std::optional<CloseNotice> n =
      commbench::fuzz::measure_allocations(allocated, [&] { return decode_close_notice(msg); });
  check(allocated == 0);
  const bool valid = msg.size() == sizeof(CloseNotice) &&
                     read_prefix<CloseNotice>(msg).magic == CloseNotice::kMagic;
  check(n.has_value() == valid);
  if (n) check(same_bytes(*n, msg));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  switch (data[0] % 3) {
    case 0:
      request({bytes + 1, size - 1});
      break;
    case 1: {
      if (size < 9) return 0;
      uint64_t nonce;
      std::memcpy(&nonce, data + 1, 8);
      reply(nonce, {bytes + 9, size - 9});
      break;
    }
    default:
      notice({bytes + 1, size - 1});
  }
  return 0;
}
