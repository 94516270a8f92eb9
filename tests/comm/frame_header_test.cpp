// The message header codec: round trips, and every corrupt or oversized header rejected
// before anything is allocated.
#include "comm/frame_header.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "comm/errors.hpp"

using namespace commbench;

namespace {

std::vector<std::byte> encode(const std::vector<size_t>& sizes, const CommLimits& limits = {}) {
  Message m;
  for (size_t s : sizes) m.frames.push_back(Buffer{nullptr, s, MemoryKind::host});
  std::vector<std::byte> out(header_bytes(sizes.size()));
  encode_header(m, out, limits);
  return out;
}

std::vector<FrameInfo> decode(const std::vector<std::byte>& wire, const CommLimits& limits = {}) {
  uint32_t n = decode_fixed_header({wire.data(), std::min(wire.size(), kFixedHeaderBytes)}, limits);
  std::vector<FrameInfo> infos;
  std::span<const std::byte> rest(wire.data() + kFixedHeaderBytes, wire.size() - kFixedHeaderBytes);
  decode_frame_descriptors(rest, n, limits, infos);
  return infos;
}

TEST(FrameHeader, RoundTrip) {
  std::vector<size_t> sizes = {0, 1, 4096, 1ull << 33};
  Message m;
  for (size_t s : sizes) m.frames.push_back(Buffer{nullptr, s, MemoryKind::host});
  m.frames[2].kind = MemoryKind::cuda;
  std::vector<std::byte> wire(header_bytes(m.frames.size()));
  CommLimits limits;
  limits.max_frame_bytes = 1ull << 34;
  limits.max_message_bytes = 1ull << 35;
  EXPECT_EQ(encode_header(m, wire, limits), wire.size());
  auto infos = decode(wire, limits);
  ASSERT_EQ(infos.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(infos[i].size, sizes[i]);
  EXPECT_EQ(infos[2].kind, MemoryKind::cuda);
  EXPECT_EQ(infos[0].kind, MemoryKind::host);
}

TEST(FrameHeader, ZeroFrames) {
  auto wire = encode({});
  EXPECT_EQ(wire.size(), kFixedHeaderBytes);
  EXPECT_TRUE(decode(wire).empty());
}

TEST(FrameHeader, RejectsBadMagic) {
  auto wire = encode({5});
  wire[0] = std::byte{'X'};
  EXPECT_THROW(decode(wire), ProtocolError);
}

TEST(FrameHeader, RejectsOtherVersion) {
  auto wire = encode({5});
  wire[4] = std::byte{2};
  EXPECT_THROW(decode(wire), ProtocolError);
}

TEST(FrameHeader, RejectsReservedBits) {
  auto wire = encode({5});
  wire[6] = std::byte{1};
  EXPECT_THROW(decode(wire), ProtocolError);
}

TEST(FrameHeader, RejectsTooManyFrames) {
  CommLimits limits;
  limits.max_frames = 4;
  auto wire = encode({1, 2, 3, 4});
  EXPECT_NO_THROW(decode(wire, limits));
  auto big = encode({1, 2, 3, 4, 5});
  EXPECT_THROW(decode(big, limits), ProtocolError);
  // A forged count far beyond the limit is refused from the fixed part alone.
  big[8] = big[9] = big[10] = big[11] = std::byte{0xff};
  EXPECT_THROW(decode_fixed_header({big.data(), kFixedHeaderBytes}, limits), ProtocolError);
}

TEST(FrameHeader, RejectsOversizedFrameAndMessage) {
  CommLimits limits;
  limits.max_frame_bytes = 1000;
  limits.max_message_bytes = 1500;
  EXPECT_THROW(decode(encode({1001}), limits), ProtocolError);
  EXPECT_THROW(decode(encode({800, 800}), limits), ProtocolError);
  EXPECT_NO_THROW(decode(encode({700, 800}), limits));
  // The sender refuses to encode what it could never send.
  Message m;
  m.frames.push_back(Buffer{nullptr, 1001, MemoryKind::host});
  std::vector<std::byte> out(header_bytes(1));
  EXPECT_THROW(encode_header(m, out, limits), ProtocolError);
}

TEST(FrameHeader, RejectsUnknownMemoryKind) {
  auto wire = encode({5});
  wire[kFixedHeaderBytes + 7] = std::byte{9};
  EXPECT_THROW(decode(wire), ProtocolError);
}

TEST(FrameHeader, RejectsTruncated) {
  auto wire = encode({5, 6});
  EXPECT_THROW(decode_fixed_header({wire.data(), 11}, {}), ProtocolError);
  std::vector<FrameInfo> infos;
  EXPECT_THROW(decode_frame_descriptors({wire.data() + kFixedHeaderBytes, 8}, 2, {}, infos),
               ProtocolError);
}

// A bare message's landing block becomes its frame; the frame's old block goes back to
// the backend for its next receive, so two blocks alternate and nothing is copied.
TEST(FrameHeader, BareMessageTakesItsLandingBlock) {
  Storage landing;
  Message into;
  void* first = landing.reserve(64, MemoryKind::host);
  std::memset(first, 0x5a, 10);
  unpack_bare_message(landing, 10, {}, into);
  ASSERT_EQ(into.frames.size(), 1u);
  EXPECT_EQ(into.frames[0].data, first);
  EXPECT_EQ(into.frames[0].size, 10u);
  EXPECT_EQ(into.frames[0].bytes()[9], std::byte{0x5a});
  EXPECT_EQ(landing.data(), nullptr);  // the message had no block yet

  void* second = landing.reserve(64, MemoryKind::host);
  std::memset(second, 0x33, 64);
  unpack_bare_message(landing, 64, {}, into);
  EXPECT_EQ(into.frames[0].data, second);
  EXPECT_EQ(into.frames[0].size, 64u);
  EXPECT_EQ(landing.data(), first);  // swapped back: the steady state allocates nothing
  EXPECT_EQ(landing.reserve(64, MemoryKind::host), first);
}

// Host frames from another allocator (the GPU staging layer's pinned memory) must stay
// there: the bytes are copied and the landing block stays with the backend.
TEST(FrameHeader, BareMessageIsCopiedWhenTheMessageHasItsOwnHostAllocator) {
  struct Counting : MemoryAllocator {
    int allocations = 0;
    void* allocate(size_t bytes) override {
      ++allocations;
      return ::operator new(bytes);
    }
    void deallocate(void* p, size_t) noexcept override { ::operator delete(p); }
  } pinned;
  {
    Message into;
    into.set_host_allocator(&pinned);
    Storage landing;
    void* block = landing.reserve(32, MemoryKind::host);
    std::memset(block, 0x42, 32);
    unpack_bare_message(landing, 20, {}, into);
    EXPECT_NE(into.frames[0].data, block);
    EXPECT_EQ(landing.data(), block);
    EXPECT_EQ(pinned.allocations, 1);
    ASSERT_EQ(into.frames[0].size, 20u);
    EXPECT_EQ(into.frames[0].bytes()[19], std::byte{0x42});
  }
}

TEST(FrameHeader, BareMessageObeysTheLimits) {
  Storage landing;
  landing.reserve(64, MemoryKind::host);
  Message into;
  CommLimits small;
  small.max_frame_bytes = 16;
  EXPECT_THROW(unpack_bare_message(landing, 17, small, into), ProtocolError);
  CommLimits none;
  none.max_frames = 0;
  EXPECT_THROW(unpack_bare_message(landing, 1, none, into), ProtocolError);
  EXPECT_NE(landing.data(), nullptr);  // a rejected message takes nothing
}

}  // namespace
