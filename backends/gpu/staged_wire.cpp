#include "gpu/staged_wire.hpp"

#include <cstring>
#include <string>

#include "comm/errors.hpp"
#include "comm/little_endian.hpp"

namespace commbench::gpu {

namespace {

// Appends `v` to `out`.
template <typename T>
void put(std::vector<std::byte>& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  le::store<T>(out.data() + at, v);
}

template <typename T>
T get(std::span<const std::byte> in, size_t at) {
  return le::load<T>(in.data() + at);
}

}  // namespace

StagedLayout plan_layout(const Message& msg, size_t chunk_bytes) {
  StagedLayout l;
  l.chunk_bytes = chunk_bytes;
  size_t device_bytes = 0;
  for (const auto& f : msg.frames) {
    l.frames.push_back({f.size, f.kind});
    if (f.kind != MemoryKind::host) device_bytes += f.size;
  }
  l.inline_device = device_bytes <= chunk_bytes;
  return l;
}

std::vector<Chunk> plan_chunks(const StagedLayout& l) {
  std::vector<Chunk> out;
  if (l.inline_device) return out;
  for (size_t i = 0; i < l.frames.size(); ++i) {
    if (l.frames[i].kind == MemoryKind::host) continue;
    for (size_t off = 0; off < l.frames[i].size; off += l.chunk_bytes)
      out.push_back({i, off, std::min<size_t>(l.chunk_bytes, l.frames[i].size - off)});
  }
  return out;
}

size_t head_payload_frames(const StagedLayout& l) noexcept {
  size_t n = 0;
  for (const auto& f : l.frames)
    if (f.kind == MemoryKind::host || l.inline_device) ++n;
  return n;
}

void encode_layout(const StagedLayout& l, std::vector<std::byte>& out) {
  out.clear();
  put<uint32_t>(out, kStagedMagic);
  put<uint8_t>(out, kStagedVersion);
  put<uint8_t>(out, l.inline_device ? 1 : 0);
  put<uint16_t>(out, 0);
  put<uint32_t>(out, static_cast<uint32_t>(l.frames.size()));
  put<uint32_t>(out, 0);
  put<uint64_t>(out, l.chunk_bytes);
  for (const auto& f : l.frames) put<uint64_t>(out, f.size | (static_cast<uint64_t>(f.kind) << 56));
}

StagedLayout decode_layout(std::span<const std::byte> in, const CommLimits& limits) {
  if (in.size() < kStagedFixedBytes) throw ProtocolError("staged: descriptor too short");
  if (get<uint32_t>(in, 0) != kStagedMagic) throw ProtocolError("staged: bad magic");
  if (get<uint8_t>(in, 4) != kStagedVersion)
    throw ProtocolError("staged: unsupported version " + std::to_string(get<uint8_t>(in, 4)));
  StagedLayout l;
  l.inline_device = (get<uint8_t>(in, 5) & 1) != 0;
  uint32_t count = get<uint32_t>(in, 8);
  l.chunk_bytes = get<uint64_t>(in, 16);
  if (l.chunk_bytes == 0) throw ProtocolError("staged: zero chunk size");
  if (count > limits.max_frames)
    throw ProtocolError("staged: " + std::to_string(count) + " frames exceed the limit");
  if (in.size() != kStagedFixedBytes + 8ull * count)
    throw ProtocolError("staged: descriptor size does not match its frame count");
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t d = get<uint64_t>(in, kStagedFixedBytes + 8ull * i);
    uint8_t kind = static_cast<uint8_t>(d >> 56);
    uint64_t size = d & ((1ull << 56) - 1);
    if (kind >= kMemoryKindCount) throw ProtocolError("staged: unknown memory kind");
    if (size > limits.max_frame_bytes || (total += size) > limits.max_message_bytes)
      throw ProtocolError("staged: frame of " + std::to_string(size) + " bytes exceeds the limit");
    l.frames.push_back({size, static_cast<MemoryKind>(kind)});
  }
  return l;
}

}  // namespace commbench::gpu
