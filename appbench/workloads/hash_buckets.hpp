// Radix partitioning by hash, the first step of a cache-conscious hash join or hash
// aggregation: rows are first grouped into buckets of a few thousand by bits of their
// key's hash, so the per-bucket hash table stays in L2 instead of one table the size of
// the input whose every insert and probe misses to DRAM. Two streaming passes replace a
// million random DRAM accesses per side (kernels_bench times the kernels that use it).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "distributed/functions.hpp"
#include "distributed/value.hpp"
#include "workloads/mix64.hpp"

namespace commbench::app {

template <size_t Cols>
using RowOf = std::array<int64_t, Cols>;

inline uint64_t hash_key(int64_t key) {
  return mix64(static_cast<uint64_t>(key));
}

// Enough buckets (a power of two) for about 4096 rows each: 4096 rows of 2-3 int64
// columns, in a table at most half full, take 128-192 KiB.
inline uint64_t bucket_count_for(uint64_t rows) {
  uint64_t buckets = 1;
  while (buckets < 4096 && rows / buckets > 4096) buckets <<= 1;
  return buckets;
}

// The bucket of a key: bits of its hash that neither the shuffle's partition (the top
// bits) nor a bucket's table index (the low bits) uses.
inline uint32_t bucket_of(uint64_t hash, uint64_t buckets) {
  return static_cast<uint32_t>((hash >> 32) & (buckets - 1));
}

// Copies every row of `tables` (Cols int64 columns each, key first) into `rows`, grouped
// by bucket; returns the buckets' offsets (buckets + 1 of them). Count, then scatter,
// handing the loop back between stripes.
template <size_t Cols>
Task<std::vector<size_t>> scatter_by_bucket(TaskContext& ctx,
                                            const std::vector<const Value*>& tables,
                                            uint64_t buckets, RowOf<Cols>* rows) {
  std::vector<size_t> at(buckets + 1, 0);
  for (const Value* v : tables) {
    auto k = v->part<const int64_t>(0);
    for (size_t r0 = 0; r0 < k.size(); r0 += kRowsPerStripe) {
      size_t r1 = std::min(k.size(), r0 + kRowsPerStripe);
      for (size_t r = r0; r < r1; ++r) ++at[bucket_of(hash_key(k[r]), buckets) + 1];
      if (ctx.slice_over()) co_await ctx.yield();
    }
  }
  for (uint64_t b = 0; b < buckets; ++b) at[b + 1] += at[b];
  std::vector<size_t> next(at.begin(), at.end() - 1);
  for (const Value* v : tables) {
    std::array<const int64_t*, Cols> col;
    for (size_t c = 0; c < Cols; ++c) col[c] = v->part<const int64_t>(c).data();
    size_t n = v->part<const int64_t>(0).size();
    for (size_t r0 = 0; r0 < n; r0 += kRowsPerStripe) {
      size_t r1 = std::min(n, r0 + kRowsPerStripe);
      for (size_t r = r0; r < r1; ++r) {
        RowOf<Cols>& out = rows[next[bucket_of(hash_key(col[0][r]), buckets)]++];
        for (size_t c = 0; c < Cols; ++c) out[c] = col[c][r];
      }
      if (ctx.slice_over()) co_await ctx.yield();
    }
  }
  co_return at;
}

}  // namespace commbench::app
