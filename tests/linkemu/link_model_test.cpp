// linkemu's link model and MAC learning, driven with made-up times: no taps, no clock.
#include "link_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frame_switch.hpp"
#include "vnet_frame.hpp"

namespace linkemu {
namespace {

constexpr Nanos kUs = 1000;

TEST(LinkModel, DelayIsAddedToEveryFrame) {
  LinkParams p;
  p.delay_ns = 2000 * kUs;
  PortLink link(p);
  Rng rng(1);
  for (Nanos now : {Nanos{0}, 5 * kUs, 1'000'000 * kUs}) {
    const Decision d = link.schedule(now, 100, rng);
    EXPECT_FALSE(d.dropped);
    EXPECT_FALSE(d.reordered);
    EXPECT_EQ(d.due_ns, now + p.delay_ns);
  }
}

TEST(LinkModel, ZeroParamsAreImmediate) {
  LinkParams p;
  PortLink link(p);
  Rng rng(1);
  EXPECT_EQ(link.schedule(42, 1500, rng).due_ns, 42);
  p.rate_bps = 1;  // a rate alone holds a frame back
  PortLink slow(p);
  EXPECT_GT(slow.schedule(42, 1500, rng).due_ns, 42);
}

// Without reordering, arrivals one microsecond apart: every extra delay is within ±J (or,
// where FIFO holds a frame back, equals its predecessor's departure), and never negative.
TEST(LinkModel, JitterStaysWithinBoundsAndNeverBelowZero) {
  LinkParams p;
  p.delay_ns = 100 * kUs;
  p.jitter_ns = 150 * kUs;   // larger than the delay: the floor at zero must hold
  p.jitter_reorders = true;  // the raw draw, without FIFO clamping
  PortLink link(p);
  Rng rng(7);
  Nanos lo = 1'000'000, hi = -1;
  for (int i = 0; i < 20000; ++i) {
    const Nanos now = i * kUs;
    const Nanos extra = link.schedule(now, 64, rng).due_ns - now;
    EXPECT_GE(extra, 0);
    EXPECT_LE(extra, p.delay_ns + p.jitter_ns);
    lo = std::min(lo, extra);
    hi = std::max(hi, extra);
  }
  EXPECT_EQ(lo, 0);                               // the floor is reached often
  EXPECT_GT(hi, p.delay_ns + p.jitter_ns - kUs);  // the top of the range too
}

TEST(LinkModel, JitterKeepsEachLinkFifoByDefault) {
  LinkParams p;
  p.delay_ns = 500 * kUs;
  p.jitter_ns = 400 * kUs;
  PortLink link(p);
  Rng rng(3);
  Nanos previous = -1;
  for (int i = 0; i < 5000; ++i) {
    const Nanos now = i * 10 * kUs;
    const Decision d = link.schedule(now, 1000, rng);
    EXPECT_GE(d.due_ns, previous) << "frame " << i << " would overtake";
    EXPECT_GE(d.due_ns, now + p.delay_ns - p.jitter_ns);
    previous = d.due_ns;
  }
}

TEST(LinkModel, JitterReordersWhenAsked) {
  LinkParams p;
  p.delay_ns = 500 * kUs;
  p.jitter_ns = 400 * kUs;
  p.jitter_reorders = true;
  PortLink link(p);
  Rng rng(3);
  int overtakes = 0;
  Nanos previous = -1;
  for (int i = 0; i < 5000; ++i) {
    const Nanos due = link.schedule(i * 10 * kUs, 1000, rng).due_ns;
    overtakes += due < previous;
    previous = due;
  }
  EXPECT_GT(overtakes, 1000);
}

TEST(LinkModel, ConstantDelayIsFifo) {
  LinkParams p;
  p.delay_ns = 50 * kUs;
  PortLink link(p);
  Rng rng(1);
  Nanos previous = -1;
  for (int i = 0; i < 1000; ++i) {
    const Nanos due = link.schedule(i * 3, 60 + i % 1400, rng).due_ns;  // bursty arrivals
    EXPECT_GE(due, previous);
    previous = due;
  }
}

TEST(LinkModel, ReorderFractionIsNearTheRequestAndFramesLeaveAtOnce) {
  LinkParams p;
  p.delay_ns = 1000 * kUs;
  p.reorder_pct = 25;
  PortLink link(p);
  Rng rng(12345);
  constexpr int kFrames = 100000;
  int reordered = 0;
  for (int i = 0; i < kFrames; ++i) {
    const Nanos now = i * kUs;
    const Decision d = link.schedule(now, 100, rng);
    if (d.reordered) {
      ++reordered;
      EXPECT_EQ(d.due_ns, now);
    } else {
      EXPECT_EQ(d.due_ns, now + p.delay_ns);
    }
  }
  // Binomial: sd = sqrt(n p (1-p)) ~ 137 frames; 5 sd either side.
  EXPECT_NEAR(reordered, kFrames / 4, 700);
}

TEST(LinkModel, LossFractionIsNearTheRequest) {
  for (const double pct : {0.0, 1.0, 30.0, 100.0}) {
    LinkParams p;
    p.loss_pct = pct;
    PortLink link(p);
    Rng rng(99);
    constexpr int kFrames = 100000;
    int lost = 0;
    for (int i = 0; i < kFrames; ++i) lost += link.schedule(i, 100, rng).dropped;
    const double sd = std::sqrt(kFrames * pct / 100 * (1 - pct / 100));
    EXPECT_NEAR(lost, kFrames * pct / 100, 5 * sd + 0.5) << pct << "%";
  }
}

TEST(LinkModel, SameSeedSameFates) {
  LinkParams p;
  p.delay_ns = 100 * kUs;
  p.jitter_ns = 50 * kUs;
  p.loss_pct = 10;
  p.reorder_pct = 10;
  const auto fates = [&](std::uint64_t seed) {
    PortLink link(p);
    Rng rng(seed);
    std::vector<Nanos> out;
    for (int i = 0; i < 1000; ++i) {
      const Decision d = link.schedule(i * kUs, 100, rng);
      out.push_back(d.dropped ? -1 : d.due_ns);
    }
    return out;
  };
  EXPECT_EQ(fates(5), fates(5));
  EXPECT_NE(fates(5), fates(6));
}

TEST(LinkModel, RateSerializesBackToBackFrames) {
  LinkParams p;
  p.rate_bps = 1'000'000'000;
  PortLink link(p);
  Rng rng(1);
  // Ten 1500 B frames arriving together at 1 Gbit/s leave 12 µs apart, the first after 12.
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(link.schedule(0, 1500, rng).due_ns, (i + 1) * 12 * kUs);
  }
  // An idle wire again: a frame arriving after the burst waits only its own 12 µs.
  EXPECT_EQ(link.schedule(1000 * kUs, 1500, rng).due_ns, 1012 * kUs);
}

TEST(LinkModel, RateAddsUpExactlyAtOddRates) {
  LinkParams p;
  p.rate_bps = 3;  // 64 B = 512 bit = 170.67 s each: the remainder must carry
  PortLink link(p);
  Rng rng(1);
  Nanos due = 0;
  for (int i = 0; i < 3; ++i) due = link.schedule(0, 64, rng).due_ns;
  EXPECT_EQ(due, 512LL * 1'000'000'000);
}

TEST(LinkModel, RateQueuesBehindTheDelay) {
  LinkParams p;
  p.delay_ns = 100 * kUs;
  p.rate_bps = 10'000'000'000;  // 1500 B = 1.2 µs
  PortLink link(p);
  Rng rng(1);
  EXPECT_EQ(link.schedule(0, 1500, rng).due_ns, 101200);
  EXPECT_EQ(link.schedule(0, 1500, rng).due_ns, 102400);
}

TEST(ParseRate, SuffixesAndErrors) {
  std::string error;
  EXPECT_EQ(parse_rate_bps("10gbit", &error), 10'000'000'000ULL);
  EXPECT_EQ(parse_rate_bps("100mbit", &error), 100'000'000ULL);
  EXPECT_EQ(parse_rate_bps("1Gbit", &error), 1'000'000'000ULL);
  EXPECT_EQ(parse_rate_bps("1.5kbit", &error), 1500ULL);
  EXPECT_EQ(parse_rate_bps("2500", &error), 2500ULL);
  EXPECT_EQ(parse_rate_bps("1e9", &error), 1'000'000'000ULL);
  EXPECT_EQ(parse_rate_bps("0", &error), 0ULL);
  EXPECT_FALSE(parse_rate_bps("10gbps", &error));
  EXPECT_NE(error.find("unknown rate suffix 'gbps'"), std::string::npos) << error;
  EXPECT_FALSE(parse_rate_bps("fast", &error));
  EXPECT_NE(error.find("malformed rate"), std::string::npos) << error;
  EXPECT_FALSE(parse_rate_bps("-1gbit", &error));
  EXPECT_FALSE(parse_rate_bps("", &error));
  EXPECT_FALSE(parse_rate_bps("0.1bit", &error));
}

// Frames with a destination and a source MAC; the payload does not matter to the switch.
std::vector<std::uint8_t> frame(std::uint8_t dst, std::uint8_t src, bool group_dst = false) {
  std::vector<std::uint8_t> f(60, 0);
  f[0] = group_dst ? 0x01 : 0x02;
  f[5] = dst;
  f[6] = 0x02;
  f[11] = src;
  return f;
}

std::vector<std::uint8_t> broadcast(std::uint8_t src) {
  auto f = frame(0, src);
  std::fill(f.begin(), f.begin() + 6, 0xff);
  return f;
}

TEST(FrameSwitch, FloodsUnknownThenLearns) {
  FrameSwitch sw(3);
  std::vector<std::size_t> out;
  sw.route(frame(0xB, 0xA), 0, out);  // B unknown: flood
  EXPECT_EQ(out, (std::vector<std::size_t>{1, 2}));
  sw.route(frame(0xA, 0xB), 2, out);  // A learnt on 0
  EXPECT_EQ(out, (std::vector<std::size_t>{0}));
  sw.route(frame(0xB, 0xA), 0, out);  // B learnt on 2
  EXPECT_EQ(out, (std::vector<std::size_t>{2}));
  EXPECT_EQ(sw.learnt(), 2U);
}

TEST(FrameSwitch, FloodsBroadcastAndMulticastEvenWhenKnown) {
  FrameSwitch sw(3);
  std::vector<std::size_t> out;
  sw.route(broadcast(0xA), 1, out);
  EXPECT_EQ(out, (std::vector<std::size_t>{0, 2}));
  sw.route(frame(0x33, 0xC, /*group_dst=*/true), 2, out);
  EXPECT_EQ(out, (std::vector<std::size_t>{0, 1}));
}

TEST(FrameSwitch, RelearnsAMovedHostAndFiltersOwnPort) {
  FrameSwitch sw(3);
  std::vector<std::size_t> out;
  sw.route(frame(0xB, 0xA), 0, out);
  sw.route(frame(0xB, 0xA), 1, out);  // A moved to port 1
  sw.route(frame(0xA, 0xC), 2, out);
  EXPECT_EQ(out, (std::vector<std::size_t>{1}));
  sw.route(frame(0xA, 0xD), 1, out);  // to its own port: filtered
  EXPECT_TRUE(out.empty());
}

TEST(FrameSwitch, IgnoresRuntsAndGroupSources) {
  FrameSwitch sw(2);
  std::vector<std::size_t> out{7};
  const std::array<std::uint8_t, 10> runt{};
  sw.route(runt, 0, out);
  EXPECT_TRUE(out.empty());
  auto bad = frame(0xB, 0xA);
  bad[6] = 0x01;  // a group source address is never learnt
  sw.route(bad, 0, out);
  EXPECT_EQ(sw.learnt(), 0U);
}

// A virtio-net header and an Ethernet/IPv4/TCP superframe: 14 + 20 + 32 B of headers.
std::vector<std::uint8_t> tcp_superframe(std::size_t payload, std::uint16_t gso_size,
                                         std::uint8_t gso_type = 1) {
  std::vector<std::uint8_t> f(kVnetHeaderBytes + 66 + payload, 0);
  f[0] = 1;  // needs checksum
  f[1] = gso_type;
  f[4] = static_cast<std::uint8_t>(gso_size & 0xff);
  f[5] = static_cast<std::uint8_t>(gso_size >> 8);
  f[6] = 34;  // checksum start: the TCP header, after Ethernet and IPv4
  f[kVnetHeaderBytes + 34 + 12] = 8 << 4;  // TCP data offset: 32 bytes (timestamps)
  return f;
}

TEST(VnetFrame, SuperframeCountsAHeaderPerSegment) {
  // 45 segments of 1448 B: 44 extra copies of the 66 B of headers.
  EXPECT_EQ(wire_bytes(tcp_superframe(45 * 1448, 1448)), 66 + 45 * 1448 + 44 * 66U);
  // A last, short segment is a segment too.
  EXPECT_EQ(wire_bytes(tcp_superframe(1448 + 1, 1448)), 66 + 1449 + 66U);
  // ECN-marked TSO is the same kind of superframe.
  EXPECT_EQ(wire_bytes(tcp_superframe(2 * 1448, 1448, 0x81)), 66 + 2 * 1448 + 66U);
}

TEST(VnetFrame, PlainAndUnparsableFramesCountAsTheirLength) {
  auto plain = tcp_superframe(100, 0, 0);
  EXPECT_EQ(wire_bytes(plain), 166U);
  auto odd = tcp_superframe(3000, 1448, 3);  // UFO: never asked for, counted as is
  EXPECT_EQ(wire_bytes(odd), 3066U);
  std::vector<std::uint8_t> runt(kVnetHeaderBytes, 0);
  EXPECT_EQ(wire_bytes(runt), 0U);
  auto cut = tcp_superframe(0, 1448);
  cut.resize(kVnetHeaderBytes + 40);  // the TCP header is missing
  EXPECT_EQ(wire_bytes(cut), 40U);
}

}  // namespace
}  // namespace linkemu
