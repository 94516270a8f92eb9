// libFuzzer target: the message-header decoder a hostile peer talks to first.
// Properties checked on every input, under ASan/UBSan (out-of-bounds reads crash):
//  - the only exception is ProtocolError;
//  - whenever decoding succeeds, every announced count and size is within the limits,
//    so no backend can be made to allocate beyond them;
//  - decoding allocates at most 2 bytes per input byte (16-byte FrameInfo per 8-byte
//    descriptor) plus 1 KiB (an error message);
//  - a decoded header re-encodes to exactly the bytes it came from.
// The first input byte picks the limits (tight or defaults) so both paths are explored.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "comm/errors.hpp"
#include "comm/frame_header.hpp"
#include "fuzz_alloc.hpp"
#include "fuzz_check.hpp"

using namespace commbench;
using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  CommLimits limits;
  if (data[0] & 1) {
    limits.max_frames = 16;
    limits.max_frame_bytes = 1 << 20;
    limits.max_message_bytes = 3 << 19;
  }
  const auto* bytes = reinterpret_cast<const std::byte*>(data + 1);
  size_t n = size - 1;
  uint32_t count = 0;
  try {
    count = decode_fixed_header({bytes, n}, limits);
  } catch (const ProtocolError&) {
    return 0;
  }
  check(count <= limits.max_frames);
  std::vector<FrameInfo> frames;
  size_t allocated = 0;
  try {
    fuzz::measure_allocations(allocated, [&] {
      decode_frame_descriptors({bytes + kFixedHeaderBytes, n - kFixedHeaderBytes}, count, limits,
                               frames);
    });
  } catch (const ProtocolError&) {
    check(allocated <= 2 * n + 1024);
    return 0;
  }
  check(allocated <= 2 * n + 1024);
  check(frames.size() == count);
  uint64_t total = 0;
  Message m;
  for (const FrameInfo& f : frames) {
    check(f.size <= limits.max_frame_bytes);
    check(static_cast<uint8_t>(f.kind) < kMemoryKindCount);
    total += f.size;
    m.frames.push_back(Buffer{nullptr, static_cast<size_t>(f.size), f.kind});
  }
  check(total <= limits.max_message_bytes);
  std::vector<std::byte> again(header_bytes(count));
  check(encode_header(m, again, limits) == again.size());
  check(n >= again.size() && std::memcmp(again.data(), bytes, again.size()) == 0);
  return 0;
}
