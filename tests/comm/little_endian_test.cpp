#include "comm/little_endian.hpp"

#include <gtest/gtest.h>

#include <array>

using namespace commbench;

namespace {

std::array<int, 8> as_ints(const std::array<std::byte, 8>& b) {
  std::array<int, 8> out{};
  for (size_t i = 0; i < 8; ++i) out[i] = std::to_integer<int>(b[i]);
  return out;
}

}  // namespace

// The wire order is least significant byte first, whatever the host's, at every width.
TEST(LittleEndian, StoresLeastSignificantByteFirstAndLoadsItBack) {
  std::array<std::byte, 8> b{};
  le::store<uint32_t>(b.data(), 0x11223344u);
  EXPECT_EQ(as_ints(b), (std::array<int, 8>{0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0}));
  EXPECT_EQ(le::load<uint32_t>(b.data()), 0x11223344u);
  le::store<uint64_t>(b.data(), 0x0102030405060708ull);
  EXPECT_EQ(as_ints(b), (std::array<int, 8>{8, 7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(le::load<uint64_t>(b.data()), 0x0102030405060708ull);
  EXPECT_EQ(le::load<uint16_t>(b.data()), 0x0708u);
  EXPECT_EQ(le::load<uint8_t>(b.data() + 7), 1u);
  // The top bit of each width survives (no sign extension through int promotion).
  le::store<uint16_t>(b.data(), 0xff80u);
  EXPECT_EQ(le::load<uint16_t>(b.data()), 0xff80u);
  le::store<uint64_t>(b.data(), ~0ull);
  EXPECT_EQ(le::load<uint64_t>(b.data()), ~0ull);
}

// A field narrower than its value keeps the low bytes and touches nothing past its width.
TEST(LittleEndian, AFieldOfGivenWidthWritesOnlyItsBytes) {
  std::array<std::byte, 8> b{};
  b.fill(std::byte{0xee});
  le::store(b.data() + 1, 0xaabbccddull, 2);
  EXPECT_EQ(as_ints(b), (std::array<int, 8>{0xee, 0xdd, 0xcc, 0xee, 0xee, 0xee, 0xee, 0xee}));
  EXPECT_EQ(le::load(b.data() + 1, 2), 0xccddu);
  EXPECT_EQ(le::load(b.data(), 0), 0u);
}
