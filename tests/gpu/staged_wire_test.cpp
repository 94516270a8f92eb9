// The staging plan and descriptor codec, without any device.
#include "gpu/staged_wire.hpp"

#include <gtest/gtest.h>

#include "comm/errors.hpp"
#include "gpu_test_support.hpp"

using namespace commbench;
using namespace commbench::gpu;

namespace {

Message shape(std::vector<std::pair<size_t, MemoryKind>> frames) {
  Message m;
  for (auto [size, kind] : frames) m.frames.push_back(Buffer{nullptr, size, kind});
  return m;
}

using gpu_test::D;
using gpu_test::H;

}  // namespace

TEST(StagedWire, SmallDeviceFramesTravelInline) {
  auto l = plan_layout(shape({{10, H}, {60, D}, {40, D}}), 100);
  EXPECT_TRUE(l.inline_device);
  EXPECT_TRUE(plan_chunks(l).empty());
  EXPECT_EQ(head_payload_frames(l), 3u);
}

TEST(StagedWire, LargeDeviceFramesAreChunkedInOrder) {
  auto l = plan_layout(shape({{60, D}, {5, H}, {250, D}, {0, D}}), 100);
  EXPECT_FALSE(l.inline_device);
  EXPECT_EQ(head_payload_frames(l), 1u);  // only the host frame rides in the head
  auto c = plan_chunks(l);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].frame, 0u);
  EXPECT_EQ(c[0].bytes, 60u);
  EXPECT_EQ(c[1].frame, 2u);
  EXPECT_EQ(c[1].offset, 0u);
  EXPECT_EQ(c[2].offset, 100u);
  EXPECT_EQ(c[3].offset, 200u);
  EXPECT_EQ(c[3].bytes, 50u);  // the last chunk is short; a 0-byte frame has none
}

TEST(StagedWire, DescriptorRoundTrips) {
  auto l = plan_layout(shape({{7, H}, {1ull << 40, D}}), 4096);
  std::vector<std::byte> wire;
  encode_layout(l, wire);
  EXPECT_EQ(wire.size(), kStagedFixedBytes + 16);
  CommLimits big;
  big.max_frame_bytes = big.max_message_bytes = 1ull << 41;
  auto back = decode_layout(wire, big);
  EXPECT_EQ(back.inline_device, l.inline_device);
  EXPECT_EQ(back.chunk_bytes, 4096u);
  ASSERT_EQ(back.frames.size(), 2u);
  EXPECT_EQ(back.frames[1].size, 1ull << 40);
  EXPECT_EQ(back.frames[1].kind, D);
}

TEST(StagedWire, DecoderRejectsMalformedDescriptors) {
  auto l = plan_layout(shape({{7, H}, {9, D}}), 4096);
  std::vector<std::byte> good;
  encode_layout(l, good);
  CommLimits lim;
  auto bad = good;
  bad[0] = std::byte{0};
  EXPECT_THROW(decode_layout(bad, lim), ProtocolError);  // magic
  bad = good;
  bad[4] = std::byte{9};
  EXPECT_THROW(decode_layout(bad, lim), ProtocolError);  // version
  bad = good;
  bad.pop_back();
  EXPECT_THROW(decode_layout(bad, lim), ProtocolError);  // truncated
  bad = good;
  for (int i = 16; i < 24; ++i) bad[i] = std::byte{0};
  EXPECT_THROW(decode_layout(bad, lim), ProtocolError);  // zero chunk size
  bad = good;
  bad[kStagedFixedBytes + 15] = std::byte{7};
  EXPECT_THROW(decode_layout(bad, lim), ProtocolError);  // unknown memory kind
  lim.max_frame_bytes = 8;
  EXPECT_THROW(decode_layout(good, lim), ProtocolError);  // over the frame limit
  EXPECT_THROW(decode_layout(std::span<const std::byte>{}, CommLimits{}), ProtocolError);
}
