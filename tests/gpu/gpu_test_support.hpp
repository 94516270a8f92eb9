// What the GPU tests share: short names for the two memory kinds a frame plan mixes, and the
// skip of a test that needs a device on a machine without one (CTest reads it as Skipped;
// tests/allowed_skips.txt allows it where no GPU is present).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "comm/buffer.hpp"
#include "gpu/gpu_path.hpp"

namespace commbench::gpu_test {

inline constexpr auto H = MemoryKind::host;
inline constexpr auto D = MemoryKind::cuda;

}  // namespace commbench::gpu_test

// Declares `ops` (the process's DeviceOps) or skips the test, naming why there is none.
#define REQUIRE_DEVICE(ops)                                                    \
  std::string why_##ops;                                                       \
  ::commbench::gpu::DeviceOps* ops = ::commbench::gpu::device_ops(&why_##ops); \
  if (!ops) {                                                                  \
    GTEST_SKIP() << "no GPU: " << why_##ops;                                   \
  }
