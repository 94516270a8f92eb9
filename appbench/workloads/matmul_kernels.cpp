#include "workloads/matmul_kernels.hpp"

#include <cblas.h>

#include "workloads/mix64.hpp"

namespace commbench::app::matmul {

namespace {
uint64_t u_weight(uint64_t r) {
  return mix64(r + 0x1234567ull) | 1;
}
uint64_t v_weight(uint64_t c) {
  return mix64(c ^ 0xabcdef0123ull) | 1;
}
}  // namespace

int64_t x_value(uint64_t n, uint64_t r, uint64_t k) {
  return static_cast<int64_t>(mix64(r * n + k + 0x9e3779b97f4a7c15ull) >> 60) - 8;
}

void fill_block(double* out, const Grid& g, uint64_t bi, uint64_t bk) {
  for (uint64_t r = 0; r < g.c; ++r)
    for (uint64_t k = 0; k < g.c; ++k)
      out[r * g.c + k] = static_cast<double>(x_value(g.n, bi * g.c + r, bk * g.c + k));
}

void multiply_transposed_rows(double* out, const double* a, const double* b, size_t c, size_t r0,
                              size_t r1) {
  auto ci = static_cast<blasint>(c);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(r1 - r0), ci, ci, 1.0,
              a + r0 * c, ci, b, ci, 0.0, out + r0 * c, ci);
}

void accumulate(double* y, const double* p, size_t count) {
  for (size_t i = 0; i < count; ++i) y[i] += p[i];
}

uint64_t checksum_block(const double* y, const Grid& g, uint64_t bi, uint64_t bj) {
  uint64_t sum = 0;
  uint64_t fractional = 0;  // y must hold integers: a fraction means a wrong product
  for (uint64_t r = 0; r < g.c; ++r) {
    uint64_t row = 0;
    for (uint64_t c = 0; c < g.c; ++c) {
      double v = y[r * g.c + c];
      auto iv = static_cast<int64_t>(v);
      fractional += static_cast<double>(iv) != v;
      row += static_cast<uint64_t>(iv) * v_weight(bj * g.c + c);
    }
    sum += row * u_weight(bi * g.c + r);
  }
  return fractional == 0 ? sum : ~sum;  // never the expected value when anything is off
}

std::vector<uint64_t> expected_checksums(const Grid& g) {
  uint64_t nb = g.blocks();
  // a[bi][k] = sum over rows r of block bi of u(r) x(r, k); b likewise with v.
  std::vector<uint64_t> a(nb * g.n, 0), b(nb * g.n, 0);
  for (uint64_t r = 0; r < g.n; ++r) {
    uint64_t u = u_weight(r), v = v_weight(r), bi = r / g.c;
    for (uint64_t k = 0; k < g.n; ++k) {
      auto x = static_cast<uint64_t>(x_value(g.n, r, k));
      a[bi * g.n + k] += u * x;
      b[bi * g.n + k] += v * x;
    }
  }
  std::vector<uint64_t> out(nb * nb, 0);
  for (uint64_t bi = 0; bi < nb; ++bi)
    for (uint64_t bj = 0; bj < nb; ++bj)
      for (uint64_t k = 0; k < g.n; ++k) out[bi * nb + bj] += a[bi * g.n + k] * b[bj * g.n + k];
  return out;
}

void use_one_blas_thread() {
  openblas_set_num_threads(1);
}

}  // namespace commbench::app::matmul
