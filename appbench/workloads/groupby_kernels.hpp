// groupby's data and kernels: a table of (key, value) rows with --groups distinct keys,
// the per-chunk partial aggregation Dask runs before a shuffle (groupby-chunk: key, sum,
// count), the final aggregation of the shuffled partials (key, sum, count, mean), and an
// exact summary of a partition's result with its expected value computed independently.
//
// Rows are numbered globally, g = chunk * rows + i. Row g has
//   key(g)   = ((g * 2654435761) mod G) * (K div G)   -- G groups spread over [0, K)
//   value(g) = g mod 1000
// (the Dask baseline builds the same table). Sums stay far below 2^63.
#pragma once

#include <cstdint>
#include <vector>

#include "distributed/functions.hpp"
#include "distributed/value.hpp"

namespace commbench::app::groupby {

struct Params {
  uint64_t rows = 0;       // rows per chunk (per worker)
  uint64_t chunks = 0;     // one chunk per worker
  uint64_t groups = 0;     // G, distinct keys over the whole table
  uint64_t key_range = 0;  // K >= G: keys lie in [0, K)
  uint64_t total_rows() const { return rows * chunks; }
  int64_t key_of_group(uint64_t group) const;  // group index -> key
  uint64_t group_of_row(uint64_t g) const;     // global row -> group index
  int64_t value_of_row(uint64_t g) const;
};

// Chunk `chunk`: columns key, value (int64).
Value generate(const Params& p, uint64_t chunk);

// Sum and count per key of one chunk (Dask's groupby-chunk before the shuffle): columns
// key, sum, count (int64), one row per distinct key, in no particular order. `max_keys`
// bounds the distinct keys (the groups): it sizes the hash table.
// Both aggregations hand the loop back between stripes and buckets when the slice is over.
Task<Value> partial_aggregate(TaskContext& ctx, const Value& table, uint64_t max_keys);

// The final aggregation of partition pieces (each key, sum, count): columns key, sum,
// count (int64) and mean (float64 = sum / count), one row per distinct key.
Task<Value> final_aggregate(TaskContext& ctx, const std::vector<const Value*>& pieces,
                            uint64_t max_keys);

// What validates a partition's result: its groups, an order-free checksum of every
// (key, sum, count), and how many means differ from sum / count.
struct Summary {
  uint64_t groups = 0;
  uint64_t checksum = 0;
  uint64_t bad_means = 0;
  bool operator==(const Summary&) const = default;
};
Summary summarize(const Value& result);
// The summary every output partition q (of `partitions`, hash-partitioned by key) must
// have, computed from the generator alone by direct counting -- no hashing table, no
// kernel above.
std::vector<Summary> expected_summaries(const Params& p, uint32_t partitions);

}  // namespace commbench::app::groupby
