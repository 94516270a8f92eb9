// libFuzzer target: the connection hello (comm/handshake.hpp).
// Properties: only ProtocolError is thrown; a name longer than kMaxHelloName or an id
// longer than kMaxPeerId is never accepted (so a peer cannot make us allocate more);
// decoding allocates at most the input plus 1 KiB (an error message); a decoded hello
// re-encodes to the input bytes exactly; ASan catches any read past the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "comm/errors.hpp"
#include "comm/handshake.hpp"
#include "fuzz_alloc.hpp"
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
  size_t allocated = 0;
  try {
    h = fuzz::measure_allocations(allocated, [&] { return decode_hello(in); });
  } catch (const ProtocolError&) {
    check(allocated <= 1024);
    return 0;
  }
  check(allocated <= size + 1024);
  check(len != SIZE_MAX && h.name.size() <= kMaxHelloName && h.id.size() <= kMaxPeerId &&
        h.name.size() + h.id.size() == len && size == kHelloFixedBytes + len);
  auto again = encode_hello(h);
  check(again.size() == size && std::memcmp(again.data(), data, size) == 0);
  return 0;
}
