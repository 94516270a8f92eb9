// The shuffle's host steps, shared by every workload that partitions rows (merge and
// groupby by hash of key, sort by key range): which partition a key goes to by hash, the
// split of a table into one table per partition by any partition function -- the pieces a
// worker's peers fetch from it -- and the view of one piece.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "distributed/functions.hpp"
#include "distributed/value.hpp"

namespace commbench::app {

// The partition a key goes to (hash of the key, as Dask's partitioning_index); spread evenly
// over `partitions` by a multiply-shift, so no modulo per row.
uint32_t partition_of(int64_t key, uint32_t partitions);

// Splits a table of int64 columns, the first the key, into `partitions` tables, row r going
// to partition_of_key(key[r]) (< partitions): with k columns, parts q*k .. q*k+k-1 of the
// result are partition q's, rows in their original order. Throws std::invalid_argument for
// a table without columns or with ragged ones. Hands the loop back between stripes of rows
// when its slice is over. `partition_of_key` is copied into the coroutine frame.
template <typename PartitionOf>
Task<Value> split_by(TaskContext& ctx, const Value& table, uint32_t partitions,
                     PartitionOf partition_of_key) {
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
    for (size_t r = r0; r < r1; ++r) ++count[dest[r] = partition_of_key(key[r])];
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

// split_by the hash of the key (partition_of).
Task<Value> split(TaskContext& ctx, const Value& table, uint32_t partitions);

// Partition q of a split table of `columns` columns per partition, as a view sharing the
// split's memory (Dask's getitem on a split). Throws std::out_of_range past the last one.
Value piece_view(const Value& split_table, uint64_t q, uint64_t columns);

}  // namespace commbench::app
