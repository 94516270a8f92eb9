#include "workloads/merge_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "workloads/hash_buckets.hpp"

namespace commbench::app::merge {

namespace {

// splitmix64: small, fast, and good enough to shuffle benchmark data reproducibly.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) {  // Lemire's multiply-shift; the tiny bias is irrelevant here
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
};

void shuffle(int64_t* v, uint64_t n, Rng& rng) {
  for (uint64_t i = n; i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

constexpr uint64_t kSeed = 17561648;  // per table and chunk: kSeed + 2 * chunk (+1 for other)

}  // namespace

uint64_t Params::matches_per_pair() const {
  auto u = static_cast<uint64_t>(std::floor(static_cast<double>(rows / chunks) * frac_match));
  return std::max<uint64_t>(u, 1);
}

Value generate_build(const Params& p, uint64_t chunk) {
  Value v = make_value({p.rows * 8, p.rows * 8});
  int64_t* key = v.part<int64_t>(0).data();
  int64_t* payload = v.part<int64_t>(1).data();
  Rng rng{kSeed + 2 * chunk};
  for (uint64_t r = 0; r < p.rows; ++r) {
    key[r] = static_cast<int64_t>(p.rows * chunk + r);
    payload[r] = static_cast<int64_t>(r);
  }
  shuffle(payload, p.rows, rng);
  return v;
}

Value generate_other(const Params& p, uint64_t chunk) {
  uint64_t sub = p.rows / p.chunks, use = p.matches_per_pair();
  if (use * p.chunks > p.rows) throw std::invalid_argument("merge: too few rows for the chunks");
  Value v = make_value({p.rows * 8, p.rows * 8});
  int64_t* key = v.part<int64_t>(0).data();
  int64_t* payload = v.part<int64_t>(1).data();
  Rng rng{kSeed + 2 * chunk + 1};
  std::vector<int64_t> range(sub);
  uint64_t at = 0;
  for (uint64_t part = 0; part < p.chunks; ++part) {  // matching keys, balanced
    uint64_t begin = p.rows * part + sub * chunk;
    for (uint64_t k = 0; k < sub; ++k) range[k] = static_cast<int64_t>(begin + k);
    for (uint64_t i = 0; i < use; ++i) std::swap(range[i], range[i + rng.below(sub - i)]);
    std::copy(range.begin(), range.begin() + static_cast<ptrdiff_t>(use), key + at);
    at += use;
  }
  uint64_t none = p.rows * p.chunks + p.rows * chunk;  // keys no build chunk has
  for (uint64_t k = 0; at < p.rows; ++k) key[at++] = static_cast<int64_t>(none + k);
  shuffle(key, p.rows, rng);
  for (uint64_t r = 0; r < p.rows; ++r) payload[r] = static_cast<int64_t>(r);
  shuffle(payload, p.rows, rng);
  return v;
}

Task<Value> hash_join(TaskContext& ctx, const std::vector<const Value*>& build,
                      const std::vector<const Value*>& other) {
  size_t nb = 0, no = 0;
  for (const Value* v : build) nb += v->part<const int64_t>(0).size();
  for (const Value* v : other) no += v->part<const int64_t>(0).size();
  // Radix-partitioned (hash_buckets.hpp): both sides grouped into buckets by hash, then a
  // small table per bucket.
  using Row = RowOf<2>;
  uint64_t buckets = bucket_count_for(nb);
  Value scratch = make_value({nb * sizeof(Row), no * sizeof(Row)});  // pooled, warm pages
  Row* brows = scratch.part<Row>(0).data();
  Row* orows = scratch.part<Row>(1).data();
  std::vector<size_t> bat = co_await scatter_by_bucket<2>(ctx, build, buckets, brows);
  std::vector<size_t> oat = co_await scatter_by_bucket<2>(ctx, other, buckets, orows);
  size_t largest = 0;
  for (uint64_t b = 0; b < buckets; ++b) largest = std::max(largest, bat[b + 1] - bat[b]);
  // Open addressing, linear probing, at most half full; key and payload side by side so a
  // probe touches one cache line. One table, cleared and reused for every bucket.
  size_t cap_max = 16;
  while (cap_max < 2 * largest) cap_max <<= 1;
  constexpr int64_t kEmpty = -1;  // generated keys are never negative
  Value table_mem = make_value({cap_max * sizeof(Row)});
  Row* table = table_mem.part<Row>(0).data();
  Value out = make_value({no * 8, no * 8, no * 8});  // at most one match per other row
  int64_t* ok = out.part<int64_t>(0).data();
  int64_t* ob = out.part<int64_t>(1).data();
  int64_t* oo = out.part<int64_t>(2).data();
  size_t m = 0;
  for (uint64_t b = 0; b < buckets; ++b) {
    size_t cap = 16;
    while (cap < 2 * (bat[b + 1] - bat[b])) cap <<= 1;
    size_t mask = cap - 1;
    std::fill(table, table + cap, Row{kEmpty, 0});
    for (size_t r = bat[b]; r < bat[b + 1]; ++r) {
      size_t i = hash_key(brows[r][0]) & mask;
      while (table[i][0] != kEmpty) i = (i + 1) & mask;
      table[i] = brows[r];
    }
    for (size_t r = oat[b]; r < oat[b + 1]; ++r) {
      int64_t key = orows[r][0];
      for (size_t i = hash_key(key) & mask; table[i][0] != kEmpty; i = (i + 1) & mask)
        if (table[i][0] == key) {
          ok[m] = key;
          ob[m] = table[i][1];
          oo[m] = orows[r][1];
          ++m;
          break;  // build keys are unique
        }
    }
    if (ctx.slice_over()) co_await ctx.yield();  // a bucket is ~4096 rows: well inside a slice
  }
  for (auto& part : out.parts) part.size = m * 8;  // the allocation stays, the view shrinks
  co_return out;
}

}  // namespace commbench::app::merge
