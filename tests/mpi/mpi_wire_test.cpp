// The wire plan of the mpi:// backend (mpi_wire.hpp): which frames of a message travel
// inline behind the header, which on their own and in how many chunks. Sender and
// receiver both run plan_message, so these edges decide whether a message round-trips.
// Pure functions: no MPI call, no MPI_Init.
#include "mpi/mpi_wire.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cstddef>
#include <utility>
#include <vector>

namespace commbench::mpi {
namespace {

WireOptions packed(size_t eager, size_t chunk = 1ull << 30) {
  WireOptions w;
  w.shape = WireShape::packed;
  w.eager = eager;
  w.chunk = chunk;
  return w;
}

WireOptions per_frame(size_t chunk = 1ull << 30) {
  WireOptions w = packed(4096, chunk);
  w.shape = WireShape::per_frame;
  return w;
}

struct Planned {
  MessagePlan plan;
  std::vector<FramePlace> places;
};

Planned plan(const std::vector<FrameInfo>& frames, const WireOptions& w, bool lane = false) {
  Planned p;
  p.places.assign(frames.size(), FramePlace{99, 99});
  p.plan = plan_message(std::span<const FrameInfo>(frames), w, lane, std::span(p.places));
  return p;
}

std::vector<FrameInfo> sizes(std::initializer_list<size_t> s) {
  std::vector<FrameInfo> f;
  for (size_t n : s) f.push_back(FrameInfo{n, MemoryKind::host});
  return f;
}

std::vector<std::pair<size_t, size_t>> chunks(size_t bytes, size_t chunk) {
  std::vector<std::pair<size_t, size_t>> out;
  for_each_chunk(bytes, chunk, [&](size_t off, size_t n) { out.emplace_back(off, n); });
  return out;
}

TEST(MpiWirePlan, NoFramesIsTheHeaderAlone) {
  Planned p = plan({}, packed(100));
  EXPECT_EQ(p.plan.layout, Layout::packed);
  EXPECT_EQ(p.plan.header_bytes, header_bytes(0));
  EXPECT_EQ(p.plan.first_bytes(), header_bytes(0));
  EXPECT_EQ(p.plan.messages(), 1u);
}

TEST(MpiWirePlan, ZeroByteFramesAreAlwaysInlineEvenWithNoBudget) {
  Planned p = plan(sizes({0, 0}), packed(0));
  EXPECT_TRUE(p.places[0].is_inline());
  EXPECT_TRUE(p.places[1].is_inline());
  EXPECT_EQ(p.plan.inline_bytes, 0u);
  EXPECT_EQ(p.plan.messages(), 1u);
  // With no budget every non-empty frame goes on its own.
  Planned q = plan(sizes({0, 1}), packed(0));
  EXPECT_TRUE(q.places[0].is_inline());
  EXPECT_EQ(q.places[1].pieces, 1u);
  EXPECT_EQ(q.plan.messages(), 2u);
}

TEST(MpiWirePlan, FrameExactlyAtTheBudgetIsInlineOneMoreIsNot) {
  Planned at = plan(sizes({100, 0}), packed(100));
  EXPECT_TRUE(at.places[0].is_inline());
  EXPECT_EQ(at.places[0].offset, header_bytes(2));
  EXPECT_EQ(at.plan.first_bytes(), header_bytes(2) + 100);
  EXPECT_EQ(at.plan.messages(), 1u);
  Planned over = plan(sizes({101, 0}), packed(100));
  EXPECT_FALSE(over.places[0].is_inline());
  EXPECT_EQ(over.places[0].pieces, 1u);
  EXPECT_TRUE(over.places[1].is_inline());
  EXPECT_EQ(over.plan.first_bytes(), header_bytes(2));
  EXPECT_EQ(over.plan.messages(), 2u);
}

TEST(MpiWirePlan, BudgetIsSharedInFrameOrderAndALaterSmallFrameStillFits) {
  // 60 fits (40 left), 50 does not, 40 fits exactly (0 left), 1 does not, 0 does.
  Planned p = plan(sizes({60, 50, 40, 1, 0}), packed(100));
  const size_t hb = header_bytes(5);
  EXPECT_TRUE(p.places[0].is_inline());
  EXPECT_EQ(p.places[0].offset, hb);
  EXPECT_FALSE(p.places[1].is_inline());
  EXPECT_TRUE(p.places[2].is_inline());
  EXPECT_EQ(p.places[2].offset, hb + 60);
  EXPECT_FALSE(p.places[3].is_inline());
  EXPECT_TRUE(p.places[4].is_inline());
  EXPECT_EQ(p.places[4].offset, hb + 100);
  EXPECT_EQ(p.plan.inline_bytes, 100u);
  EXPECT_EQ(p.plan.frame_messages, 2u);
  EXPECT_EQ(p.plan.messages(), 3u);
}

TEST(MpiWirePlan, PerFrameInlinesNothingAndSendsDescriptorsApart) {
  Planned p = plan(sizes({0, 8, 5000}), per_frame(4096));
  EXPECT_EQ(p.plan.layout, Layout::per_frame);
  for (const FramePlace& f : p.places) EXPECT_FALSE(f.is_inline());
  EXPECT_EQ(p.places[2].pieces, 2u);
  EXPECT_EQ(p.plan.first_bytes(), kFixedHeaderBytes);
  EXPECT_EQ(p.plan.header_bytes, header_bytes(3));
  EXPECT_EQ(p.plan.inline_bytes, 0u);
  EXPECT_EQ(p.plan.messages(), 2u + 1 + 1 + 2);  // fixed, descriptors, frames
}

TEST(MpiWirePlan, BareOnlyForOneHostFrameWithinTheBudgetOnALane) {
  Planned bare = plan(sizes({100}), packed(100), true);
  EXPECT_EQ(bare.plan.layout, Layout::bare);
  EXPECT_EQ(bare.plan.header_bytes, 0u);
  EXPECT_EQ(bare.plan.first_bytes(), 100u);
  EXPECT_EQ(bare.plan.messages(), 1u);
  EXPECT_TRUE(bare.places[0].is_inline());
  EXPECT_EQ(plan(sizes({0}), packed(100), true).plan.layout, Layout::bare);
  EXPECT_EQ(plan(sizes({101}), packed(100), true).plan.layout, Layout::packed);
  EXPECT_EQ(plan(sizes({100}), packed(100), false).plan.layout, Layout::packed);
  EXPECT_EQ(plan(sizes({1, 1}), packed(100), true).plan.layout, Layout::packed);
  EXPECT_EQ(plan(sizes({1}), per_frame(), true).plan.layout, Layout::per_frame);
  std::vector<FrameInfo> device{{8, MemoryKind::cuda}};
  EXPECT_EQ(plan(device, packed(100), true).plan.layout, Layout::packed);
}

TEST(MpiWirePlan, LargeFramesAreChunkedAndThePiecesMatchThePlan) {
  Planned p = plan(sizes({10, 4096, 4097, 3 * 4096}), packed(0, 4096));
  EXPECT_EQ(p.places[0].pieces, 1u);
  EXPECT_EQ(p.places[1].pieces, 1u);
  EXPECT_EQ(p.places[2].pieces, 2u);
  EXPECT_EQ(p.places[3].pieces, 3u);
  EXPECT_EQ(p.plan.frame_messages, 7u);
  EXPECT_EQ(chunks(4097, 4096), (std::vector<std::pair<size_t, size_t>>{{0, 4096}, {4096, 1}}));
  EXPECT_EQ(chunks(0, 4096), (std::vector<std::pair<size_t, size_t>>{{0, 0}}));
  EXPECT_EQ(chunks(4096, 4096), (std::vector<std::pair<size_t, size_t>>{{0, 4096}}));
  EXPECT_EQ(chunks(12288, 4096).size(), 3u);
}

TEST(MpiWirePlan, BeyondIntMaxSplitsAtTheChunkOrNeverWithChunkZero) {
  const size_t big = 2560ull << 20;  // 2.5 GiB: beyond MPI's int count
  ASSERT_GT(big, static_cast<size_t>(INT_MAX));
  Planned p = plan(sizes({big}), packed(4096));
  EXPECT_EQ(p.places[0].pieces, 3u);  // default 1 GiB chunks
  auto c = chunks(big, 1ull << 30);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2], std::make_pair(size_t{2} << 30, size_t{512} << 20));
  for (const auto& piece : c) EXPECT_LE(piece.second, static_cast<size_t>(INT_MAX));
  // chunk=0 (MPI-4 large counts): one message of the whole frame.
  EXPECT_EQ(plan(sizes({big}), packed(4096, 0)).places[0].pieces, 1u);
  EXPECT_EQ(chunks(big, 0), (std::vector<std::pair<size_t, size_t>>{{0, big}}));
}

}  // namespace
}  // namespace commbench::mpi
