// Validation patterns: every byte of a message depends on its position and a seed
// (message number, direction), so a dropped, duplicated, reordered or shifted byte or
// message is caught by check_pattern.
#pragma once

#include <cstddef>
#include <cstdint>

namespace commbench {

void fill_pattern(void* data, size_t size, uint64_t seed) noexcept;
// Testing aid (--test-corrupt-payload N): from now on, every Nth fill_pattern call flips
// one byte of what it wrote, as a faulty wire would, so tests can show validation failing
// end to end. 0 (the default) = never.
void corrupt_every_nth_fill(uint64_t n) noexcept;
// Number of bytes that differ from the pattern.
size_t check_pattern(const void* data, size_t size, uint64_t seed) noexcept;

// The seed of frame `frame` of message `message`, for tests that send multi-frame
// messages: neighbouring messages and frames get different patterns, so a frame delivered
// in another's place is caught (the pattern repeats only every 256 seeds).
constexpr uint64_t frame_seed(uint64_t message, uint64_t frame) noexcept {
  return message * 37 + frame;
}

}  // namespace commbench
