#include "workloads/hash_split.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/mix64.hpp"

namespace commbench::app {

uint32_t partition_of(int64_t key, uint32_t partitions) {
  uint64_t h = mix64(static_cast<uint64_t>(key)) >> 1;
  return static_cast<uint32_t>((static_cast<unsigned __int128>(h) * partitions) >> 63);
}

Task<Value> split(TaskContext& ctx, const Value& table, uint32_t partitions) {
  const size_t cols = table.parts.size();
  if (cols == 0) throw std::invalid_argument("split: a table needs a key column");
  auto key = table.part<const int64_t>(0);
  for (size_t c = 1; c < cols; ++c)
    if (table.parts[c].size != table.parts[0].size)
      throw std::invalid_argument("split: columns of different lengths");
  Value scratch = make_value({key.size() * 4});  // pooled: no fresh pages every run
  uint32_t* dest = scratch.part<uint32_t>(0).data();
  std::vector<size_t> count(partitions, 0);
  for (size_t r0 = 0; r0 < key.size(); r0 += kRowsPerStripe) {
    size_t r1 = std::min(key.size(), r0 + kRowsPerStripe);
    for (size_t r = r0; r < r1; ++r) ++count[dest[r] = partition_of(key[r], partitions)];
    if (ctx.slice_over()) co_await ctx.yield();
  }
  std::vector<size_t> sizes;
  for (uint32_t q = 0; q < partitions; ++q) sizes.insert(sizes.end(), cols, count[q] * 8);
  Value out = make_value(std::span<const size_t>(sizes));
  // One column at a time: each pass streams one input column and writes `partitions`
  // sequential outputs, which stays cache-friendly for any column count.
  std::vector<int64_t*> at(partitions);
  for (size_t c = 0; c < cols; ++c) {
    auto in = table.part<const int64_t>(c);
    for (uint32_t q = 0; q < partitions; ++q) at[q] = out.part<int64_t>(q * cols + c).data();
    for (size_t r0 = 0; r0 < in.size(); r0 += kRowsPerStripe) {
      size_t r1 = std::min(in.size(), r0 + kRowsPerStripe);
      for (size_t r = r0; r < r1; ++r) *at[dest[r]]++ = in[r];
      if (ctx.slice_over()) co_await ctx.yield();
    }
  }
  co_return out;
}

Value piece_view(const Value& split_table, uint64_t q, uint64_t columns) {
  if (columns == 0 || (q + 1) * columns > split_table.parts.size())
    throw std::out_of_range("no partition " + std::to_string(q) + " of " + std::to_string(columns) +
                            " columns in a split of " + std::to_string(split_table.parts.size()) +
                            " parts");
  Value v;
  v.owner = split_table.owner;
  v.parts.assign(split_table.parts.begin() + static_cast<ptrdiff_t>(q * columns),
                 split_table.parts.begin() + static_cast<ptrdiff_t>((q + 1) * columns));
  return v;
}

}  // namespace commbench::app
