// The header that precedes every message on a byte stream or in a packed MPI/UCX send.
//
// Layout (little endian):
//   u32 magic 'CBM1' | u8 version | u8 flags | u16 reserved (0) | u32 frame count
//   then per frame: u64 = size | (memory kind << 56)
// The fixed part is read first; it tells how many frame descriptors follow, and the
// decoder rejects any count or size beyond CommLimits before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "comm/buffer.hpp"
#include "comm/limits.hpp"
#include "comm/message.hpp"

namespace commbench {

constexpr uint32_t kFrameMagic = 0x314d4243;  // "CBM1"
constexpr uint8_t kFrameVersion = 1;
constexpr size_t kFixedHeaderBytes = 12;
constexpr size_t kFrameDescriptorBytes = 8;
constexpr uint64_t kMaxEncodableFrameBytes = (1ull << 56) - 1;

struct FrameInfo {
  uint64_t size = 0;
  MemoryKind kind = MemoryKind::host;
};

inline size_t header_bytes(size_t frames) noexcept {
  return kFixedHeaderBytes + frames * kFrameDescriptorBytes;
}

// Throws the ProtocolError that says which limit `msg` breaks (check_limits found one).
[[noreturn, gnu::cold]] void limits_broken(const Message& msg, const CommLimits& limits);

// Whether `msg` keeps the limits (frame count, frame and message size); check_limits
// throws the ProtocolError that says which one it breaks. Inline, with the error text out
// of line: every write of every backend runs it, and as a
// call it cost a one-frame message some 75 instructions (results/layer-2026-11-30).
inline bool within_limits(const Message& msg, const CommLimits& limits) noexcept {
  const uint64_t max_frame = limits.max_frame_bytes < kMaxEncodableFrameBytes
                                 ? limits.max_frame_bytes
                                 : kMaxEncodableFrameBytes;
  bool broken = msg.frames.size() > limits.max_frames;
  uint64_t total = 0;
  for (const Buffer& f : msg.frames) {
    broken |= f.size > max_frame;
    total += f.size;  // checked per frame, so no sum of frames below 2^56 each can wrap
    broken |= total > limits.max_message_bytes;
  }
  return !broken;
}
inline void check_limits(const Message& msg, const CommLimits& limits) {
  if (!within_limits(msg, limits)) [[unlikely]]
    limits_broken(msg, limits);
}

// Writes the header for `msg` into `out` (which must hold header_bytes(frames)).
// Throws ProtocolError if the message itself breaks the limits (check_limits).
size_t encode_header(const Message& msg, std::span<std::byte> out, const CommLimits& limits);

// Checks the fixed part; returns the frame count. Throws ProtocolError.
uint32_t decode_fixed_header(std::span<const std::byte> fixed, const CommLimits& limits);

// Decodes `count` frame descriptors and checks sizes and kinds. Throws ProtocolError.
void decode_frame_descriptors(std::span<const std::byte> descriptors, uint32_t count,
                              const CommLimits& limits, std::vector<FrameInfo>& out);

// A bare message (MPI lanes, UCX: one host frame sent without header, the transport's tag
// saying so) of `got` bytes received into `landing`: checks it as a header announcing one
// host frame of that size would be checked, then makes it `into`'s one frame. The landing
// block itself becomes the frame (Message::adopt_frame; `landing` gets the frame's old
// block, which the caller re-reserves before its next receive), or the bytes are copied
// where `into` keeps its host frames elsewhere. Throws ProtocolError.
void unpack_bare_message(Storage& landing, size_t got, const CommLimits& limits, Message& into);

}  // namespace commbench
