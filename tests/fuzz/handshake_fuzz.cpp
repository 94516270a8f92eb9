// libFuzzer target: the connection hello (comm/handshake.hpp).
// Properties: only ProtocolError is thrown; a name longer than kMaxHelloName or an id
// longer than kMaxPeerId is never accepted (so a peer cannot make us allocate more); a decoded
// hello re-encodes to the input bytes exactly; ASan catches any read past the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "comm/errors.hpp"
#include "comm/handshake.hpp"
#include "fuzz_check.hpp"

using namespace commbench;
using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  size_t len = 0;
  try {
    len = decode_hello_fixed(in);
  } catch (const ProtocolError&) {
    len = SIZE_MAX;
  }
  if (len != SIZE_MAX) check(len <= kMaxHelloName + kMaxPeerId);
  Hello h;
  try {
    h = decode_hello(in);
  } catch (const ProtocolError&) {
    return 0;
  }
  check(len != SIZE_MAX && h.name.size() <= kMaxHelloName && h.id.size() <= kMaxPeerId &&
        h.name.size() + h.id.size() == len && size == kHelloFixedBytes + len);
  auto again = encode_hello(h);
  check(again.size() == size && std::memcmp(again.data(), data, size) == 0);
  return 0;
}
