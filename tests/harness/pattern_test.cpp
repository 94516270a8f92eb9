#include <gtest/gtest.h>

#include <vector>

#include "harness/pattern.hpp"

using namespace commbench;

TEST(Pattern, CheckFindsEveryCorruption) {
  for (size_t size : {0u, 1u, 7u, 8u, 9u, 4096u, 65537u}) {
    std::vector<unsigned char> b(size);
    fill_pattern(b.data(), size, 42);
    EXPECT_EQ(check_pattern(b.data(), size, 42), 0u) << size;
    if (size == 0) continue;
    b[size / 2] ^= 1;
    EXPECT_EQ(check_pattern(b.data(), size, 42), 1u) << size;
    EXPECT_GT(check_pattern(b.data(), size, 43), size / 2) << "another seed must not match";
  }
}

TEST(Pattern, ShiftedDataIsWrong) {
  std::vector<unsigned char> b(1024), shifted(1024);
  fill_pattern(b.data(), b.size(), 1);
  std::copy(b.begin() + 1, b.end(), shifted.begin());
  EXPECT_GT(check_pattern(shifted.data(), shifted.size(), 1), 900u);
}
