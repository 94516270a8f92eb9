#include "harness/pattern.hpp"

#include <cstring>

namespace commbench {

namespace {
// 8 bytes at a time; the byte at offset i is (i*131 + seed*7 + (i >> 8)) & 0xff spread
// over the word, cheap to produce and sensitive to offsets.
inline uint64_t word_at(size_t i, uint64_t seed) noexcept {
  uint64_t w = 0;
  for (int k = 0; k < 8; ++k) {
    uint64_t pos = i + static_cast<uint64_t>(k);
    w |= ((pos * 131 + seed * 7 + (pos >> 8)) & 0xff) << (8 * k);
  }
  return w;
}
uint64_t g_corrupt_every = 0;  // one thread fills: the ranks' loops are single-threaded
uint64_t g_fills = 0;
}  // namespace

void corrupt_every_nth_fill(uint64_t n) noexcept {
  g_corrupt_every = n;
  g_fills = 0;
}

void fill_pattern(void* data, size_t size, uint64_t seed) noexcept {
  auto* p = static_cast<unsigned char*>(data);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w = word_at(i, seed);
    std::memcpy(p + i, &w, 8);
  }
  for (; i < size; ++i) p[i] = static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 8)) & 0xff);
  if (g_corrupt_every != 0 && size > 0 && ++g_fills % g_corrupt_every == 0) p[size / 2] ^= 0x5a;
}

size_t check_pattern(const void* data, size_t size, uint64_t seed) noexcept {
  auto* p = static_cast<const unsigned char*>(data);
  size_t wrong = 0;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    uint64_t want = word_at(i, seed);
    if (w != want)
      for (int k = 0; k < 8; ++k) wrong += ((w >> (8 * k)) & 0xff) != ((want >> (8 * k)) & 0xff);
  }
  for (; i < size; ++i)
    wrong += p[i] != static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 8)) & 0xff);
  return wrong;
}

}  // namespace commbench
