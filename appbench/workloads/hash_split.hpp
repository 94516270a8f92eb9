// The hash shuffle's two host steps, shared by every workload that partitions rows by key
// (merge, groupby): which output partition a key goes to, and the split of a two-column
// table into one table per partition -- the pieces a worker's peers fetch from it.
#pragma once

#include <cstdint>

#include "distributed/functions.hpp"
#include "distributed/value.hpp"

namespace commbench::app {

// The partition a key goes to (hash of the key, as Dask's partitioning_index); spread evenly
// over `partitions` by a multiply-shift, so no modulo per row.
uint32_t partition_of(int64_t key, uint32_t partitions);

// Splits a table of int64 columns, the first the key, into `partitions` tables: with k
// columns, parts q*k .. q*k+k-1 of the result are partition q's, rows in their original
// order. Throws std::invalid_argument for a table without columns or with ragged ones.
// Hands the loop back between stripes of rows when its slice is over.
Task<Value> split(TaskContext& ctx, const Value& table, uint32_t partitions);

// Partition q of a split table of `columns` columns per partition, as a view sharing the
// split's memory (Dask's getitem on a split). Throws std::out_of_range past the last one.
Value piece_view(const Value& split_table, uint64_t q, uint64_t columns);

}  // namespace commbench::app
