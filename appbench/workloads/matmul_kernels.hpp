// matmul's data and kernels: y = x . x^T of an N x N float64 matrix in C x C blocks (C
// divides N), computed as Dask's blockwise dot does -- a partial product per (i, j, k),
// x(i, k) . x(j, k)^T with the BLAS (OpenBLAS, the library Debian's numpy uses), then the
// sum over k -- and an exact checksum per block of y.
//
// x holds small integers (-8 .. 7) stored as float64, so every partial sum is an integer
// far below 2^53: exact whatever the BLAS's summation order. A block's checksum is
//   sum over (r, c) of y(r, c) * u(r) * v(c)   modulo 2^64
// with hash weights u, v per global row and column. Because y = x . x^T it also equals
//   sum over k of (sum_r u(r) x(r, k)) * (sum_c v(c) x(c, k)),
// which expected_checksums computes from the generator in O(N^2), never multiplying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commbench::app::matmul {

struct Grid {
  uint64_t n = 0;  // matrix order
  uint64_t c = 0;  // block order, divides n
  uint64_t blocks() const { return n / c; }
};

int64_t x_value(uint64_t n, uint64_t r, uint64_t k);
// Block (bi, bk) of x, row-major c x c.
void fill_block(double* out, const Grid& g, uint64_t bi, uint64_t bk);
// Rows [r0, r1) of out = a . b^T, where a and b are c x c row-major (one BLAS call).
void multiply_transposed_rows(double* out, const double* a, const double* b, size_t c, size_t r0,
                              size_t r1);
// y += p over `count` elements.
void accumulate(double* y, const double* p, size_t count);
// The checksum of block (bi, bj) of y.
uint64_t checksum_block(const double* y, const Grid& g, uint64_t bi, uint64_t bj);
// The checksum every block of y must have, from the generator alone, indexed bi * blocks + bj.
std::vector<uint64_t> expected_checksums(const Grid& g);
// Pins the BLAS to one thread in this process (a Dask worker with one thread does the same
// through OPENBLAS_NUM_THREADS=1): each worker owns one core.
void use_one_blas_thread();

}  // namespace commbench::app::matmul
