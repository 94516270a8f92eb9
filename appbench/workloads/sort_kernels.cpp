#include "workloads/sort_kernels.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <stdexcept>

#include "workloads/hash_split.hpp"
#include "workloads/mix64.hpp"

namespace commbench::app::sort {

namespace {
constexpr uint64_t kSeed = 0x5eed50f7ull;

struct Row {
  int64_t key;
  int64_t payload;
};

// Sorts rows by key in two steps: one scatter into buckets by the key's position in
// [lo, hi] (the partition's range, so uniform keys fill the buckets evenly), then a sort
// of each bucket of ~512 rows, in L1: two passes over the rows where an 8-bit LSD radix
// sort needs eight. Skewed keys stay correct, only slower.
Task<void> bucket_sort(TaskContext& ctx, const Row* in, Row* out, size_t n, int64_t lo,
                       int64_t hi) {
  // The bucket is the top bits of the key's offset from lo: a shift, no division.
  uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  size_t buckets = 1;
  while (buckets < 2048 && n / buckets > 512) buckets <<= 1;
  // The smallest shift with range >> shift < buckets; 64 (one bucket over the whole int64
  // range) would be an undefined shift, so that case puts every key in bucket 0.
  int shift = std::max(
      0, static_cast<int>(std::bit_width(range)) - static_cast<int>(std::countr_zero(buckets)));
  auto bucket = [lo, shift](int64_t key) -> size_t {
    if (shift >= 64) return 0;
    return static_cast<size_t>((static_cast<uint64_t>(key) - static_cast<uint64_t>(lo)) >> shift);
  };
  std::vector<size_t> at(buckets + 1, 0);
  for (size_t i0 = 0; i0 < n; i0 += kRowsPerStripe) {
    for (size_t i = i0; i < std::min(n, i0 + kRowsPerStripe); ++i) ++at[bucket(in[i].key) + 1];
    if (ctx.slice_over()) co_await ctx.yield();
  }
  for (size_t b = 0; b < buckets; ++b) at[b + 1] += at[b];
  std::vector<size_t> next(at.begin(), at.end() - 1);
  for (size_t i0 = 0; i0 < n; i0 += kRowsPerStripe) {
    for (size_t i = i0; i < std::min(n, i0 + kRowsPerStripe); ++i)
      out[next[bucket(in[i].key)]++] = in[i];
    if (ctx.slice_over()) co_await ctx.yield();
  }
  for (size_t b = 0; b < buckets; ++b) {
    std::sort(out + at[b], out + at[b + 1],
              [](const Row& x, const Row& y) { return x.key < y.key; });
    if (b % 32 == 31 && ctx.slice_over()) co_await ctx.yield();
  }
}
}  // namespace

int64_t key_of_row(uint64_t g) {
  return static_cast<int64_t>(mix64(g + kSeed) >> 1);
}

uint64_t pair_hash(int64_t key, int64_t payload) {
  return mix64(static_cast<uint64_t>(key) ^ mix64(static_cast<uint64_t>(payload)));
}

Value generate(const Params& p, uint64_t chunk) {
  Value v = make_value({p.rows * 8, p.rows * 8});
  int64_t* key = v.part<int64_t>(0).data();
  int64_t* payload = v.part<int64_t>(1).data();
  for (uint64_t i = 0; i < p.rows; ++i) {
    uint64_t g = chunk * p.rows + i;
    key[i] = key_of_row(g);
    payload[i] = static_cast<int64_t>(g);
  }
  return v;
}

Value sample(const Value& table, uint64_t count) {
  auto key = table.part<const int64_t>(0);
  uint64_t n = std::min<uint64_t>(count, key.size());
  Value out = make_value({n * 8});
  int64_t* o = out.part<int64_t>(0).data();
  // Evenly spaced positions: the generator's keys are in no order, so this is a fair sample.
  for (uint64_t i = 0; i < n; ++i) o[i] = key[(i * key.size() + key.size() / 2) / n];
  return out;
}

Value splitters(const std::vector<const Value*>& samples, uint32_t partitions) {
  std::vector<int64_t> all;
  for (const Value* s : samples) {
    auto k = s->part<const int64_t>(0);
    all.insert(all.end(), k.begin(), k.end());
  }
  std::sort(all.begin(), all.end());
  uint64_t n = partitions > 0 ? partitions - 1 : 0;
  Value out = make_value({n * 8});
  int64_t* o = out.part<int64_t>(0).data();
  for (uint64_t q = 1; q <= n; ++q)
    o[q - 1] = all.empty() ? 0 : all[std::min<size_t>(all.size() - 1, q * all.size() / partitions)];
  return out;
}

uint32_t range_of(int64_t key, const int64_t* splitters, size_t count) {
  return static_cast<uint32_t>(std::upper_bound(splitters, splitters + count, key) - splitters);
}

Task<Value> range_split(TaskContext& ctx, const Value& table, const Value& split_keys) {
  auto sp = split_keys.part<const int64_t>(0);
  auto by_range = [keys = sp.data(), n = sp.size()](int64_t key) { return range_of(key, keys, n); };
  co_return co_await split_by(ctx, table, static_cast<uint32_t>(sp.size() + 1), by_range);
}

Task<Value> sort_pieces(TaskContext& ctx, const std::vector<const Value*>& pieces) {
  size_t n = 0;
  for (const Value* p : pieces) {
    if (p->parts.size() != 2) throw std::runtime_error("sort: a piece needs 2 columns");
    n += p->part<const int64_t>(0).size();
  }
  Value scratch = make_value({n * sizeof(Row), n * sizeof(Row)});  // pooled, warm pages
  Row* rows = scratch.part<Row>(0).data();
  Row* sorted = scratch.part<Row>(1).data();
  // One pass gathers the rows and the key range the bucket pass needs.
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  size_t at = 0;
  for (const Value* p : pieces) {
    auto k = p->part<const int64_t>(0);
    auto v = p->part<const int64_t>(1);
    for (size_t i0 = 0; i0 < k.size(); i0 += kRowsPerStripe) {
      for (size_t i = i0; i < std::min(k.size(), i0 + kRowsPerStripe); ++i) {
        lo = std::min(lo, k[i]);
        hi = std::max(hi, k[i]);
        rows[at++] = Row{k[i], v[i]};
      }
      if (ctx.slice_over()) co_await ctx.yield();
    }
  }
  if (n > 0) co_await bucket_sort(ctx, rows, sorted, n, lo, hi);
  Value out = make_value({n * 8, n * 8});
  int64_t* ok = out.part<int64_t>(0).data();
  int64_t* op = out.part<int64_t>(1).data();
  for (size_t i0 = 0; i0 < n; i0 += kRowsPerStripe) {
    for (size_t i = i0; i < std::min(n, i0 + kRowsPerStripe); ++i) {
      ok[i] = sorted[i].key;
      op[i] = sorted[i].payload;
    }
    if (ctx.slice_over()) co_await ctx.yield();
  }
  co_return out;
}

Summary summarize(const Value& sorted) {
  Summary s;
  if (sorted.parts.size() != 2) {
    s.unsorted = 1;  // not a table: can never validate
    return s;
  }
  auto k = sorted.part<const int64_t>(0);
  auto v = sorted.part<const int64_t>(1);
  s.rows = k.size();
  if (s.rows == 0) return s;
  for (size_t i = 0; i < k.size(); ++i) {
    if (i > 0 && k[i - 1] > k[i]) ++s.unsorted;
    s.checksum += pair_hash(k[i], v[i]);
  }
  s.min = *std::min_element(k.begin(), k.end());
  s.max = *std::max_element(k.begin(), k.end());
  return s;
}

Summary expected_total(const Params& p) {
  Summary s;
  s.rows = p.total_rows();
  for (uint64_t g = 0; g < s.rows; ++g)
    s.checksum += pair_hash(key_of_row(g), static_cast<int64_t>(g));
  return s;
}

}  // namespace commbench::app::sort
