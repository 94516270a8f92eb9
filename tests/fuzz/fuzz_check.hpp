// Shared by the libFuzzer targets: a property that fails aborts, which libFuzzer reports
// as a crash with the input that caused it (a gtest assertion would not stop the run).
#pragma once

#include <cstdlib>

namespace commbench::fuzz {

inline void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace commbench::fuzz
