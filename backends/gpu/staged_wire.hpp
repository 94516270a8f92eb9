// How StagedComm puts one message on a host-only comm, and how it splits device frames.
//
// A message becomes one "head" message on the inner comm, then the chunk messages:
//   head  = [descriptor, every host frame, and (inline) every device frame, in order]
//   chunk = [one host frame of at most chunk_bytes], for each device frame not inline,
//           frames in order, chunks in order.
// Device frames travel inline (copied whole into one staging buffer, one inner write)
// when all of them together fit in one chunk: small messages then cost one transfer,
// like a host message. Larger ones are pipelined chunk by chunk.
//
// Descriptor (little endian): u32 magic 'CBS1' | u8 version | u8 flags (bit 0 = inline)
// | u16 0 | u32 frame count | u32 0 | u64 chunk_bytes | per frame u64 size | kind << 56.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "comm/frame_header.hpp"
#include "comm/message.hpp"

namespace commbench::gpu {

constexpr uint32_t kStagedMagic = 0x31534243;  // "CBS1"
constexpr uint8_t kStagedVersion = 1;
constexpr size_t kStagedFixedBytes = 24;

struct StagedLayout {
  bool inline_device = false;
  uint64_t chunk_bytes = 0;
  std::vector<FrameInfo> frames;  // size and memory kind as the sender had them
};

// One piece of a device frame sent on its own.
struct Chunk {
  size_t frame = 0;
  size_t offset = 0;
  size_t bytes = 0;
};

// The layout a sender uses for `msg` with chunks of `chunk_bytes` (> 0).
StagedLayout plan_layout(const Message& msg, size_t chunk_bytes);
// Every chunk message that follows the head, in wire order (empty when inline).
std::vector<Chunk> plan_chunks(const StagedLayout& layout);
// Frames of the head after the descriptor.
size_t head_payload_frames(const StagedLayout& layout) noexcept;

void encode_layout(const StagedLayout& layout, std::vector<std::byte>& out);
// Throws ProtocolError on a bad magic, version, kind, a zero chunk size, or a frame
// count or size beyond `limits`.
StagedLayout decode_layout(std::span<const std::byte> in, const CommLimits& limits);

}  // namespace commbench::gpu
