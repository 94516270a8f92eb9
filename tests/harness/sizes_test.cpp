#include <gtest/gtest.h>

#include "harness/sizes.hpp"

using namespace commbench;

TEST(Sizes, ParsesSuffixes) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("64"), 64u);
  EXPECT_EQ(parse_size("8K"), 8192u);
  EXPECT_EQ(parse_size("8k"), 8192u);
  EXPECT_EQ(parse_size("4M"), 4u << 20);
  EXPECT_EQ(parse_size("4MiB"), 4u << 20);
  EXPECT_EQ(parse_size("1G"), 1ull << 30);
  EXPECT_EQ(parse_size("2560M"), 2560ull << 20);
}

TEST(Sizes, RejectsMalformed) {
  for (const char* bad : {"", "K", "4X", "-1", "4.5M", "1e3", "99999999999999999999G"})
    EXPECT_THROW(parse_size(bad), std::invalid_argument) << bad;
}

TEST(Sizes, Sweep) {
  EXPECT_EQ(size_sweep(1, 8, 2), (std::vector<size_t>{1, 2, 4, 8}));
  EXPECT_EQ(size_sweep(0, 4, 2), (std::vector<size_t>{0, 1, 2, 4}));
  EXPECT_EQ(size_sweep(3, 20, 2), (std::vector<size_t>{3, 6, 12, 20}));
  EXPECT_EQ(size_sweep(5, 5, 2), (std::vector<size_t>{5}));
  EXPECT_THROW(size_sweep(8, 4, 2), std::invalid_argument);
  EXPECT_THROW(size_sweep(1, 4, 1), std::invalid_argument);
}

TEST(Sizes, Format) {
  EXPECT_EQ(format_size(4096), "4K");
  EXPECT_EQ(format_size(3 << 20), "3M");
  EXPECT_EQ(format_size(1000), "1000");
}
