#include "workloads/transpose_kernels.hpp"

#include <algorithm>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace commbench::app::transpose {

void fill_block_rows(double* out, const Grid& g, uint64_t bi, uint64_t bj, uint64_t r0,
                     uint64_t r1) {
  uint64_t cols = g.extent(bj);
  for (uint64_t r = r0; r < r1; ++r)
    for (uint64_t c = 0; c < cols; ++c)
      out[r * cols + c] = x_value(g.n, bi * g.c + r, bj * g.c + c);
}

void transpose_add_rows(double* y, const double* a, const double* b, size_t rows, size_t cols,
                        size_t r0, size_t r1) {
  constexpr size_t T = 64;  // 64 x 64 doubles = 32 KiB: the tile stays in L1/L2
  alignas(64) double tile[T * T];
  for (size_t rt = r0; rt < r1; rt += T) {
    size_t rn = std::min(T, r1 - rt);
    for (size_t ct = 0; ct < cols; ct += T) {
      size_t cn = std::min(T, cols - ct);
      // b's rows are contiguous in r: read them in order, scatter into the small tile.
      for (size_t c = 0; c < cn; ++c) {
        const double* brow = b + (ct + c) * rows + rt;
        for (size_t r = 0; r < rn; ++r) tile[r * T + c] = brow[r];
      }
      for (size_t r = 0; r < rn; ++r) {
        const double* arow = a + (rt + r) * cols + ct;
        double* yrow = y + (rt + r) * cols + ct;
        const double* trow = tile + r * T;
#if defined(__SSE2__)
        // y is written once and not read again here: streaming stores skip the read for
        // ownership of every y line, a quarter of the kernel's memory traffic.
        if (cn == T && (reinterpret_cast<uintptr_t>(yrow) & 15) == 0) {
          for (size_t c = 0; c < T; c += 2)
            _mm_stream_pd(yrow + c, _mm_add_pd(_mm_loadu_pd(arow + c), _mm_load_pd(trow + c)));
          continue;
        }
#endif
        for (size_t c = 0; c < cn; ++c) yrow[c] = arow[c] + trow[c];
      }
    }
  }
#if defined(__SSE2__)
  _mm_sfence();  // the streamed lines are visible before the block is handed on
#endif
}

uint64_t checksum_block(const double* y, const Grid& g, uint64_t bi, uint64_t bj) {
  uint64_t rows = g.extent(bi), cols = g.extent(bj), sum = 0;
  uint64_t fractional = 0;  // y holds integers: a fraction means a changed low mantissa byte
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) {
      double v = y[r * cols + c];
      auto iv = static_cast<uint64_t>(v);
      fractional += static_cast<double>(iv) != v;
      sum += iv * weight(g.n, bi * g.c + r, bj * g.c + c);
    }
  return fractional == 0 ? sum : ~sum;  // never the expected value when anything is off
}

std::vector<uint64_t> expected_checksums(const Grid& g) {
  uint64_t nb = g.blocks();
  std::vector<uint64_t> out(nb * nb, 0);
  for (uint64_t r = 0; r < g.n; ++r)
    for (uint64_t c = 0; c < g.n; ++c) {
      auto y = static_cast<uint64_t>(x_value(g.n, r, c) + x_value(g.n, c, r));
      out[(r / g.c) * nb + c / g.c] += y * weight(g.n, r, c);
    }
  return out;
}

}  // namespace commbench::app::transpose
