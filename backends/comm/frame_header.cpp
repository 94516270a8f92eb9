#include "comm/frame_header.hpp"

#include <cstring>
#include <string>

#include "comm/errors.hpp"
#include "comm/little_endian.hpp"

namespace commbench {

namespace {
[[noreturn, gnu::cold, gnu::noinline]] void frame_too_large(uint64_t size, uint64_t limit) {
  throw ProtocolError("frame of " + std::to_string(size) + " bytes exceeds limit of " +
                      std::to_string(limit));
}
[[noreturn, gnu::cold, gnu::noinline]] void message_too_large(uint64_t limit) {
  throw ProtocolError("message exceeds limit of " + std::to_string(limit) + " bytes");
}

// A frame of `size` bytes, with `total` the bytes of the message so far (updated): the
// size limits, enforced by a sender before anything goes out and by a receiver before it
// allocates anything. The errors are built out of line so that this inlines: it runs for
// every frame received.
inline void check_frame(uint64_t size, uint64_t& total, const CommLimits& limits) {
  if (size > limits.max_frame_bytes) [[unlikely]]
    frame_too_large(size, limits.max_frame_bytes);
  total += size;
  if (total > limits.max_message_bytes) [[unlikely]]
    message_too_large(limits.max_message_bytes);
}
}  // namespace

void limits_broken(const Message& msg, const CommLimits& limits) {
  size_t n = msg.frames.size();
  if (n > limits.max_frames)
    throw ProtocolError("message has " + std::to_string(n) + " frames, limit is " +
                        std::to_string(limits.max_frames));
  uint64_t total = 0;
  for (const Buffer& f : msg.frames) {
    if (f.size > kMaxEncodableFrameBytes)
      throw ProtocolError("frame of " + std::to_string(f.size) +
                          " bytes is too large for the frame header");
    check_frame(f.size, total, limits);
  }
  throw std::logic_error("limits_broken called for a message within its limits");
}

size_t encode_header(const Message& msg, std::span<std::byte> out, const CommLimits& limits) {
  check_limits(msg, limits);
  size_t n = msg.frames.size();
  size_t need = header_bytes(n);
  if (out.size() < need) throw std::logic_error("header buffer too small");
  le::store<uint32_t>(out.data(), kFrameMagic);
  out[4] = static_cast<std::byte>(kFrameVersion);
  out[5] = std::byte{0};
  out[6] = out[7] = std::byte{0};
  le::store<uint32_t>(out.data() + 8, static_cast<uint32_t>(n));
  std::byte* d = out.data() + kFixedHeaderBytes;
  for (const Buffer& f : msg.frames) {
    le::store<uint64_t>(d, f.size | (static_cast<uint64_t>(f.kind) << 56));
    d += kFrameDescriptorBytes;
  }
  return need;
}

uint32_t decode_fixed_header(std::span<const std::byte> fixed, const CommLimits& limits) {
  if (fixed.size() < kFixedHeaderBytes) throw ProtocolError("truncated message header");
  uint32_t magic = le::load<uint32_t>(fixed.data());
  if (magic != kFrameMagic) throw ProtocolError("bad magic in message header");
  auto version = static_cast<uint8_t>(fixed[4]);
  if (version != kFrameVersion)
    throw ProtocolError("unsupported message header version " + std::to_string(version));
  if (fixed[5] != std::byte{0} || fixed[6] != std::byte{0} || fixed[7] != std::byte{0})
    throw ProtocolError("reserved message header bits set");
  uint32_t count = le::load<uint32_t>(fixed.data() + 8);
  if (count > limits.max_frames)
    throw ProtocolError("message header announces " + std::to_string(count) + " frames, limit is " +
                        std::to_string(limits.max_frames));
  return count;
}

void decode_frame_descriptors(std::span<const std::byte> descriptors, uint32_t count,
                              const CommLimits& limits, std::vector<FrameInfo>& out) {
  if (descriptors.size() < size_t{count} * kFrameDescriptorBytes)
    throw ProtocolError("truncated frame descriptors");
  out.resize(count);
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t v = le::load<uint64_t>(descriptors.data() + size_t{i} * kFrameDescriptorBytes);
    uint64_t size = v & kMaxEncodableFrameBytes;
    auto kind = static_cast<uint8_t>(v >> 56);
    if (kind >= kMemoryKindCount)
      throw ProtocolError("unknown memory kind " + std::to_string(kind) + " in frame header");
    check_frame(size, total, limits);
    out[i] = FrameInfo{size, static_cast<MemoryKind>(kind)};
  }
}

void unpack_bare_message(Storage& landing, size_t got, const CommLimits& limits, Message& into) {
  if (limits.max_frames < 1) [[unlikely]]
    throw ProtocolError("message of 1 frame, limit is 0 frames");
  uint64_t total = 0;
  check_frame(got, total, limits);
  into.prepare_frames(1);
  if (into.adopt_frame(0, landing, got)) return;
  Buffer& f = into.prepare_frame(0, got, MemoryKind::host);
  if (got > 0) std::memcpy(f.data, landing.data(), got);
}

}  // namespace commbench
