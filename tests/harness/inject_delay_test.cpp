#include "harness/inject_delay.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace commbench;

TEST(InjectDelay, MicrosecondsToNanoseconds) {
  EXPECT_EQ(parse_inject_delay(""), 0u);
  EXPECT_EQ(parse_inject_delay("0"), 0u);
  EXPECT_EQ(parse_inject_delay("5"), 5000u);
  EXPECT_EQ(parse_inject_delay("0.5"), 500u);
  for (const char* bad : {"-1", "abc", "5us", "nan", "1e20"})
    EXPECT_THROW(parse_inject_delay(bad), std::invalid_argument) << bad;
}
