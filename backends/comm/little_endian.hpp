// The integers of every wire format here (frame headers, the handshakes, the staged GPU
// descriptor) are little endian, written and read byte by byte whatever the host's order.
// The typed forms compute in T, as each file's own helpers did: the frame header's code is
// the same instructions as before they were shared (objdump, wave 3), so the per-message
// paths pay nothing new (the staged descriptor's do differ: its old reads summed in 64 bits).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

namespace commbench::le {

template <std::unsigned_integral T>
constexpr void store(std::byte* p, T v) noexcept {
  for (int i = 0; i < int{sizeof(T)}; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}

template <std::unsigned_integral T>
constexpr T load(const std::byte* p) noexcept {
  T v = 0;
  for (int i = 0; i < int{sizeof(T)}; ++i) v |= static_cast<T>(p[i]) << (8 * i);
  return v;
}

// A field `bytes` wide (a handshake's 16-bit lengths): the low bytes of `v`.
constexpr void store(std::byte* p, uint64_t v, size_t bytes) noexcept {
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}

constexpr uint64_t load(const std::byte* p, size_t bytes) noexcept {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace commbench::le
