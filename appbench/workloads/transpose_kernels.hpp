// transpose-sum's data and kernels: the N x N matrix in C x C blocks (the last block row
// and column are smaller when C does not divide N), its generator, the cache-blocked
// y = a + b^T of one block, and an exact checksum to validate y.
//
// x holds small integers stored as float64, so every y element is exact and the
// checksum -- a sum of y * w(r, c) modulo 2^64 with a hash weight per position -- does not
// depend on summation order, and catches a block that is missing, misplaced or not
// transposed (y = x + x would pass a plain sum). An element that is not an integer (a
// changed low mantissa byte, which the integer part alone would hide) fails the block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "workloads/mix64.hpp"

namespace commbench::app::transpose {

struct Grid {
  uint64_t n = 0;                                      // matrix order
  uint64_t c = 0;                                      // block order
  uint64_t blocks() const { return (n + c - 1) / c; }  // per dimension
  uint64_t extent(uint64_t b) const { return b * c + c <= n ? c : n - b * c; }
};

// x(r, c): a 20-bit integer, exact in a double.
inline double x_value(uint64_t n, uint64_t r, uint64_t c) {
  return static_cast<double>(mix64(r * n + c + 0x9e3779b97f4a7c15ull) >> 44);
}
inline uint64_t weight(uint64_t n, uint64_t r, uint64_t c) {
  return mix64(r * n + c) | 1;
}

// Fills rows [r0, r1) of block (bi, bj), stored row-major with extent(bj) columns.
void fill_block_rows(double* out, const Grid& g, uint64_t bi, uint64_t bj, uint64_t r0,
                     uint64_t r1);
// y = a + b^T for rows [r0, r1): a and y are rows x cols, b is cols x rows (row-major).
// Tiles of b are transposed into an L1-resident buffer, then added row-contiguously.
void transpose_add_rows(double* y, const double* a, const double* b, size_t rows, size_t cols,
                        size_t r0, size_t r1);
// The checksum of block (bi, bj) of y.
uint64_t checksum_block(const double* y, const Grid& g, uint64_t bi, uint64_t bj);
// The checksum every block of y must have, computed from the generator alone
// (independently of any kernel above), indexed bi * blocks + bj.
std::vector<uint64_t> expected_checksums(const Grid& g);

}  // namespace commbench::app::transpose
