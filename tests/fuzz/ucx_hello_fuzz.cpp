// libFuzzer target: the UCX hello (backends/ucx/ucx_hello.hpp), read in the two steps
// ucx::exchange_hello takes over the stream (fixed part, then the announced rest). No UCX
// is needed: the decoder is pure. Properties, under ASan/UBSan (a read past the input
// crashes):
//  - the only exception is ProtocolError;
//  - the fixed part announces at most kMaxHelloName + kMaxPeerId + kMaxWorkerAddress more bytes, so
//    the receive buffer exchange_hello sizes from it is bounded whatever the peer says;
//  - decoding allocates at most what the input holds plus a constant;
//  - a decoded hello re-encodes to exactly its input, and a hello built from the input
//    bytes encodes (unless its name or address breaks a limit) and decodes back equal.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "comm/errors.hpp"
#include "fuzz_alloc.hpp"
#include "fuzz_check.hpp"
#include "ucx/ucx_hello.hpp"

using namespace commbench;
using namespace commbench::ucx;
using fuzz::check;

namespace {

// The input read as a hello's parts: tag (8 bytes), name length (1 byte, scaled so the
// name limit is reachable), name, and the rest as the worker address.
void encode_round_trip(const uint8_t* data, size_t size) {
  if (size < 9) return;
  PeerHello h;
  std::memcpy(&h.tag, data, 8);
  size_t name_len = std::min<size_t>(size_t{data[8]} * 5, size - 9);
  h.name.assign(reinterpret_cast<const char*>(data + 9), name_len);
  const auto* addr = reinterpret_cast<const std::byte*>(data + 9 + name_len);
  h.address.assign(addr, addr + (size - 9 - name_len));
  const bool fits =
      h.name.size() <= kMaxHelloName && !h.address.empty() && h.address.size() <= kMaxWorkerAddress;
  std::vector<std::byte> bytes;
  try {
    bytes = encode_peer_hello(h);
  } catch (const ProtocolError&) {
    check(!fits);
    return;
  }
  check(fits);
  PeerHello back = decode_peer_hello(bytes);  // what we send must decode
  check(back.tag == h.tag && back.name == h.name && back.address == h.address);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  encode_round_trip(data, size);

  size_t rest = SIZE_MAX;
  try {
    rest = decode_peer_hello_fixed(in);
  } catch (const ProtocolError&) {
  }
  if (rest != SIZE_MAX) check(rest >= 1 && rest <= kMaxHelloName + kMaxPeerId + kMaxWorkerAddress);

  PeerHello h;
  size_t allocated = 0;
  try {
    h = fuzz::measure_allocations(allocated, [&] { return decode_peer_hello(in); });
  } catch (const ProtocolError&) {
    check(allocated <= 1024);  // an error message, nothing sized by the input
    return 0;
  }
  check(allocated <= size + 1024);
  check(rest != SIZE_MAX && size == kPeerHelloFixedBytes + rest);
  check(h.name.size() <= kMaxHelloName);
  check(!h.address.empty() && h.address.size() <= kMaxWorkerAddress);
  auto again = encode_peer_hello(h);
  check(again.size() == size && std::memcmp(again.data(), data, size) == 0);
  return 0;
}
