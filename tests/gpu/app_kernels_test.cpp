// The application GPU kernels against host references; skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <unordered_map>
#include <vector>

#include "comm/buffer.hpp"
#include "gpu/gpu_path.hpp"
#include "gpu_test_support.hpp"
#include "workloads/cuda/merge_gpu.hpp"
#include "workloads/cuda/transpose_add_gpu.hpp"

using namespace commbench;
namespace ag = commbench::app::gpu;

namespace {

// Device copy of a host vector, freed with the Storage.
template <typename T>
T* upload(gpu::DeviceOps& ops, Storage& s, const std::vector<T>& v) {
  void* d = s.reserve(v.size() * sizeof(T), MemoryKind::cuda);
  ops.copy(d, v.data(), v.size() * sizeof(T));
  return static_cast<T*>(d);
}
template <typename T>
std::vector<T> download(gpu::DeviceOps& ops, const T* d, size_t n) {
  std::vector<T> v(n);
  ops.copy(v.data(), d, n * sizeof(T));
  return v;
}

// A build/other pair as dask-cuda's local_cudf_merge makes them (the shape, not its
// exact random streams): build chunk i has unique keys [L*i, L*(i+1)); every other chunk
// takes m = max(floor(L/n * f), 1) keys from each build chunk and the rest from a range
// no build key uses. The join has exactly n * n * m rows.
struct Tables {
  std::vector<std::vector<int64_t>> build_keys, other_keys;
};
Tables make_tables(size_t L, size_t n, double f, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tables t;
  size_t m = std::max<size_t>(static_cast<size_t>(static_cast<double>(L / n) * f), 1);
  for (size_t i = 0; i < n; ++i) {
    std::vector<int64_t> b(L);
    std::iota(b.begin(), b.end(), static_cast<int64_t>(L * i));
    std::shuffle(b.begin(), b.end(), rng);
    t.build_keys.push_back(b);
  }
  for (size_t j = 0; j < n; ++j) {
    std::vector<int64_t> o;
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 0; k < m; ++k) o.push_back(t.build_keys[i][(j * m + k) % L]);
    int64_t fresh = static_cast<int64_t>(L * n * (j + 2));
    while (o.size() < L) o.push_back(fresh++);
    std::shuffle(o.begin(), o.end(), rng);
    t.other_keys.push_back(o);
  }
  return t;
}

}  // namespace

TEST(AppKernels, TransposeAddMatchesHostForOddShapes) {
  REQUIRE_DEVICE(ops);
  for (auto [rows, cols] : {std::pair<size_t, size_t>{1, 1}, {33, 65}, {1000, 777}, {4096, 4096}}) {
    std::vector<double> a(rows * cols), b(cols * rows);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 1013);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>((i * 7) % 2029) * 1024.0;
    Storage sa, sb, sy;
    double* da = upload(*ops, sa, a);
    double* db = upload(*ops, sb, b);
    auto* dy = static_cast<double*>(sy.reserve(a.size() * sizeof(double), MemoryKind::cuda));
    ag::transpose_add(dy, da, db, rows, cols);
    ag::synchronize();
    auto y = download(*ops, dy, a.size());
    size_t wrong = 0;
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c)
        wrong += y[r * cols + c] != a[r * cols + c] + b[c * rows + r];
    EXPECT_EQ(wrong, 0u) << rows << " x " << cols;
  }
}

TEST(AppKernels, HashPartitionGroupsStablyAndKeepsEveryRow) {
  REQUIRE_DEVICE(ops);
  const size_t n = 100003;
  const uint32_t parts = 7;
  std::vector<int64_t> keys(n), pay(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<int64_t>(i * 2654435761u % 1000003);
    pay[i] = static_cast<int64_t>(i);
  }
  Storage sk, sp, ok, op;
  auto* dk = upload(*ops, sk, keys);
  auto* dp = upload(*ops, sp, pay);
  auto* outk = static_cast<int64_t*>(ok.reserve(n * 8, MemoryKind::cuda));
  auto* outp = static_cast<int64_t*>(op.reserve(n * 8, MemoryKind::cuda));
  auto off = ag::hash_partition(dk, dp, n, parts, outk, outp);
  auto k2 = download(*ops, outk, n), p2 = download(*ops, outp, n);
  ASSERT_EQ(off.size(), parts + 1u);
  EXPECT_EQ(off.front(), 0u);
  EXPECT_EQ(off.back(), n);
  for (uint32_t p = 0; p < parts; ++p)
    for (size_t i = off[p]; i < off[p + 1]; ++i) {
      ASSERT_EQ(ag::partition_of(k2[i], parts), p);
      ASSERT_EQ(k2[i], keys[static_cast<size_t>(p2[i])]);  // payload travelled with its key
      if (i > off[p]) {
        ASSERT_LT(p2[i - 1], p2[i]);  // stable
      }
    }
}

TEST(AppKernels, ShuffleJoinYieldsTheExpectedRowCount) {
  REQUIRE_DEVICE(ops);
  const size_t L = 100000, n = 2;
  const double f = 0.3;
  Tables t = make_tables(L, n, f, 42);
  size_t expected =
      n * n * std::max<size_t>(static_cast<size_t>(static_cast<double>(L / n) * f), 1);

  // Partition every chunk of both tables on the device, "exchange" (worker w gets
  // partition w of every chunk), then join locally per worker.
  std::vector<std::vector<int64_t>> got_build(n), got_other(n);
  for (int side = 0; side < 2; ++side)
    for (size_t c = 0; c < n; ++c) {
      const auto& keys = side == 0 ? t.build_keys[c] : t.other_keys[c];
      Storage sk, sp, ok, op;
      auto* dk = upload(*ops, sk, keys);
      auto* dp = upload(*ops, sp, keys);  // payload = key: checked after the join
      auto* outk = static_cast<int64_t*>(ok.reserve(keys.size() * 8, MemoryKind::cuda));
      auto* outp = static_cast<int64_t*>(op.reserve(keys.size() * 8, MemoryKind::cuda));
      auto off = ag::hash_partition(dk, dp, keys.size(), static_cast<uint32_t>(n), outk, outp);
      auto hk = download(*ops, outk, keys.size());
      for (size_t w = 0; w < n; ++w)
        (side == 0 ? got_build : got_other)[w].insert((side == 0 ? got_build : got_other)[w].end(),
                                                      hk.begin() + off[w], hk.begin() + off[w + 1]);
    }
  size_t total = 0, host_total = 0;
  for (size_t w = 0; w < n; ++w) {
    Storage bk, ok, rk, rb, ro;
    auto* dbk = upload(*ops, bk, got_build[w]);
    auto* dok = upload(*ops, ok, got_other[w]);
    ag::DeviceJoin join(dbk, dbk, got_build[w].size());
    size_t rows = join.count(dok, got_other[w].size());
    auto* k = static_cast<int64_t*>(rk.reserve(rows * 8 + 8, MemoryKind::cuda));
    auto* b = static_cast<int64_t*>(rb.reserve(rows * 8 + 8, MemoryKind::cuda));
    auto* o = static_cast<int64_t*>(ro.reserve(rows * 8 + 8, MemoryKind::cuda));
    EXPECT_EQ(join.materialize(dok, dok, got_other[w].size(), k, b, o), rows);
    auto hk = download(*ops, k, rows), hb = download(*ops, b, rows), ho = download(*ops, o, rows);
    for (size_t i = 0; i < rows; ++i) {
      ASSERT_EQ(hk[i], hb[i]);
      ASSERT_EQ(hk[i], ho[i]);
    }
    total += rows;
    std::unordered_map<int64_t, size_t> count;
    for (auto key : got_build[w]) ++count[key];
    for (auto key : got_other[w]) host_total += count.count(key) ? count[key] : 0;
  }
  EXPECT_EQ(host_total, expected);
  EXPECT_EQ(total, expected);
}
