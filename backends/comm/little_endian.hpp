// The integers of every wire format here (frame headers, the handshakes, the staged GPU
// descriptor) are little endian whatever the host's order. On a little-endian host the
// typed forms are one unaligned copy: the byte-by-byte loops they replace were not merged
// by the compiler and cost a one-frame header some 100 instructions on every message of a
// byte-stream backend (results/layer-2026-11-30); a big-endian host keeps the loops.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace commbench::le {

template <std::unsigned_integral T>
constexpr void store(std::byte* p, T v) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    if (!std::is_constant_evaluated()) {
      std::memcpy(p, &v, sizeof(T));
      return;
    }
  }
  for (int i = 0; i < int{sizeof(T)}; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}

template <std::unsigned_integral T>
constexpr T load(const std::byte* p) noexcept {
  T v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    if (!std::is_constant_evaluated()) {
      std::memcpy(&v, p, sizeof(T));
      return v;
    }
  }
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
