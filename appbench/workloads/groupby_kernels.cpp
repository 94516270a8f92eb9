#include "workloads/groupby_kernels.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "workloads/hash_buckets.hpp"
#include "workloads/hash_split.hpp"

namespace commbench::app::groupby {

namespace {

constexpr uint64_t kMultiplier = 2654435761;  // Knuth's: spreads consecutive rows over groups

// The term one group adds to a partition's checksum; a sum of terms does not depend on
// the order groups come out in.
uint64_t term(int64_t key, int64_t sum, int64_t count) {
  uint64_t k = static_cast<uint64_t>(key), s = static_cast<uint64_t>(sum);
  return mix64(k ^ mix64(s + mix64(static_cast<uint64_t>(count) + 0x9e3779b97f4a7c15ull)));
}

// Aggregates rows grouped into hash buckets (hash_buckets.hpp): one small open-addressing
// table of (key, sum, count) per bucket, in L2, cleared and reused; each bucket's groups
// go to emit(key, sum, count). Rows are (key, value) when Cols == 2 and (key, sum, count)
// when Cols == 3. Returns the groups emitted; more than `max_keys` is an error.
template <size_t Cols, typename Emit>
Task<uint64_t> aggregate_buckets(TaskContext& ctx, const RowOf<Cols>* rows,
                                 const std::vector<size_t>& at, uint64_t max_keys, Emit& emit) {
  using Slot = RowOf<3>;         // key, sum, count
  constexpr int64_t kFree = -1;  // keys are never negative
  size_t largest = 0;
  for (size_t b = 0; b + 1 < at.size(); ++b) largest = std::max(largest, at[b + 1] - at[b]);
  size_t cap_max = 16;
  while (cap_max < 2 * largest) cap_max <<= 1;
  Value scratch = make_value({cap_max * sizeof(Slot)});  // pooled: warm pages run after run
  Slot* table = scratch.part<Slot>(0).data();
  uint64_t groups = 0;
  for (size_t b = 0; b + 1 < at.size(); ++b) {
    size_t cap = 16;
    while (cap < 2 * (at[b + 1] - at[b])) cap <<= 1;
    size_t mask = cap - 1;
    std::fill(table, table + cap, Slot{kFree, 0, 0});
    for (size_t r = at[b]; r < at[b + 1]; ++r) {
      int64_t key = rows[r][0];
      size_t i = hash_key(key) & mask;
      while (table[i][0] != key && table[i][0] != kFree) i = (i + 1) & mask;
      table[i][0] = key;
      table[i][1] += rows[r][1];
      if constexpr (Cols == 3)
        table[i][2] += rows[r][2];
      else
        table[i][2] += 1;
    }
    for (size_t i = 0; i < cap; ++i)
      if (table[i][0] != kFree) {
        if (++groups > max_keys)
          throw std::runtime_error("groupby: more distinct keys than groups");
        emit(table[i][0], table[i][1], table[i][2]);
      }
    if (ctx.slice_over()) co_await ctx.yield();
  }
  co_return groups;
}

}  // namespace

int64_t Params::key_of_group(uint64_t group) const {
  return static_cast<int64_t>(group * (key_range / groups));
}
uint64_t Params::group_of_row(uint64_t g) const {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(g) * kMultiplier) % groups);
}
int64_t Params::value_of_row(uint64_t g) const {
  return static_cast<int64_t>(g % 1000);
}

Value generate(const Params& p, uint64_t chunk) {
  if (p.groups == 0 || p.key_range < p.groups)
    throw std::invalid_argument("groupby: the key range is smaller than the groups");
  Value v = make_value({p.rows * 8, p.rows * 8});
  int64_t* key = v.part<int64_t>(0).data();
  int64_t* value = v.part<int64_t>(1).data();
  for (uint64_t i = 0; i < p.rows; ++i) {
    uint64_t g = chunk * p.rows + i;
    key[i] = p.key_of_group(p.group_of_row(g));
    value[i] = p.value_of_row(g);
  }
  return v;
}

namespace {

// Both aggregations: the rows of `tables` (Cols int64 columns each) grouped into hash
// buckets, then summed per key; columns key, sum, count, and mean when asked for.
template <size_t Cols>
Task<Value> aggregate(TaskContext& ctx, const std::vector<const Value*>& tables, uint64_t max_keys,
                      bool with_mean) {
  uint64_t rows = 0;
  for (const Value* t : tables) {
    if (t->parts.size() != Cols)
      throw std::runtime_error("groupby: expected " + std::to_string(Cols) + " columns");
    rows += t->part<const int64_t>(0).size();
  }
  Value scratch = make_value({rows * sizeof(RowOf<Cols>)});
  auto* bucketed = scratch.part<RowOf<Cols>>(0).data();
  std::vector<size_t> at =
      co_await scatter_by_bucket<Cols>(ctx, tables, bucket_count_for(rows), bucketed);
  uint64_t n = std::min(rows, max_keys);
  std::vector<size_t> sizes(with_mean ? 4 : 3, n * 8);
  Value out = make_value(std::span<const size_t>(sizes));
  int64_t* ok = out.part<int64_t>(0).data();
  int64_t* os = out.part<int64_t>(1).data();
  int64_t* oc = out.part<int64_t>(2).data();
  double* om = with_mean ? out.part<double>(3).data() : nullptr;
  size_t m = 0;
  // A named lambda, passed by reference: GCC 12 mishandles lambdas made inside co_await.
  auto emit = [&](int64_t k, int64_t s, int64_t c) {
    ok[m] = k;
    os[m] = s;
    oc[m] = c;
    if (om) om[m] = static_cast<double>(s) / static_cast<double>(c);
    ++m;
  };
  co_await aggregate_buckets<Cols>(ctx, bucketed, at, max_keys, emit);
  for (auto& part : out.parts) part.size = m * 8;  // the allocation stays, the view shrinks
  co_return out;
}

}  // namespace

Task<Value> partial_aggregate(TaskContext& ctx, const Value& table, uint64_t max_keys) {
  std::vector<const Value*> tables{&table};
  co_return co_await aggregate<2>(ctx, tables, max_keys, false);
}

Task<Value> final_aggregate(TaskContext& ctx, const std::vector<const Value*>& pieces,
                            uint64_t max_keys) {
  co_return co_await aggregate<3>(ctx, pieces, max_keys, true);
}

Summary summarize(const Value& result) {
  Summary out;
  if (result.parts.size() != 4) {
    out.bad_means = 1;  // not a result table at all: can never match
    return out;
  }
  auto k = result.part<const int64_t>(0);
  auto s = result.part<const int64_t>(1);
  auto c = result.part<const int64_t>(2);
  auto m = result.part<const double>(3);
  out.groups = k.size();
  for (size_t r = 0; r < k.size(); ++r) {
    out.checksum += term(k[r], s[r], c[r]);
    if (c[r] == 0 || m[r] != static_cast<double>(s[r]) / static_cast<double>(c[r])) ++out.bad_means;
  }
  return out;
}

std::vector<Summary> expected_summaries(const Params& p, uint32_t partitions) {
  std::vector<int64_t> sum(p.groups, 0), count(p.groups, 0);
  for (uint64_t g = 0; g < p.total_rows(); ++g) {
    uint64_t grp = p.group_of_row(g);
    sum[grp] += p.value_of_row(g);
    ++count[grp];
  }
  std::vector<Summary> out(partitions);
  for (uint64_t grp = 0; grp < p.groups; ++grp) {
    if (count[grp] == 0) continue;  // a group no row fell into has no output row
    int64_t key = p.key_of_group(grp);
    Summary& q = out[partition_of(key, partitions)];
    ++q.groups;
    q.checksum += term(key, sum[grp], count[grp]);
  }
  return out;
}

}  // namespace commbench::app::groupby
