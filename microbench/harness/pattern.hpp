// Validation patterns: every byte of a message depends on its position and a seed
// (message number, direction), so a dropped, duplicated, reordered or shifted byte or
// message is caught by check_pattern.
#pragma once

#include <cstddef>
#include <cstdint>

namespace commbench {

void fill_pattern(void* data, size_t size, uint64_t seed) noexcept;
// Number of bytes that differ from the pattern.
size_t check_pattern(const void* data, size_t size, uint64_t seed) noexcept;

}  // namespace commbench
