// Patterned multi-frame messages for the comm tests, on the benchmarks' own pattern
// (microbench/harness/pattern.hpp): frame f of message m carries
// fill_pattern(.., frame_seed(m, f)), so a dropped, shifted, reordered or swapped byte,
// frame or message is counted by wrong_bytes.
#pragma once

#include <cstddef>
#include <vector>

#include "comm/buffer.hpp"
#include "comm/message.hpp"

namespace commbench::testing {

// One frame of a test message: its size and the memory it lives in (host unless a test
// stands a device in).
struct FrameShape {
  FrameShape(size_t bytes, MemoryKind memory = MemoryKind::host) : size(bytes), kind(memory) {}
  size_t size;
  MemoryKind kind;
};
using Shape = std::vector<FrameShape>;

// Message `id` of `shape`, owning its frames (allocated through the kind's allocator).
struct PatternMessage {
  std::vector<Storage> store;
  Message msg;
  PatternMessage(size_t id, const Shape& shape);
};

// Bytes (or frame sizes) of `m` that differ from message `id` of `shape`; 0 = exact. A
// wrong frame count counts 1 + frames, a wrong frame size that frame's size + 1. Memory
// kinds are not compared (tests that care check them).
size_t wrong_bytes(const Message& m, size_t id, const Shape& shape);

}  // namespace commbench::testing
