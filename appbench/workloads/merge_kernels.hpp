// merge's data and kernels: dask-cuda's local_cudf_merge generator (as BRIEF.md section 1
// describes it) and a local inner hash join (the hash split is hash_split.hpp's).
//
// Tables are two int64 columns, key and payload, each one Value part. With L rows per
// chunk, n chunks and fraction f:
//   build chunk i: keys [L*i, L*(i+1)) in order, payload a random permutation of [0, L).
//   other chunk i: from every build chunk p, u = max(floor((L div n) * f), 1) keys drawn
//     without repetition from [L*p + (L div n)*i, L*p + (L div n)*(i+1)) -- balanced over the
//     build partitions, disjoint between other chunks -- and the remaining L - n*u keys from
//     [L*n + L*i, ...), which no build chunk holds; keys shuffled, payload a permutation.
// So the join matches exactly n * n * u rows.
#pragma once

#include <cstdint>
#include <vector>

#include "distributed/functions.hpp"
#include "distributed/value.hpp"

namespace commbench::app::merge {

struct Params {
  uint64_t rows = 0;    // L, rows per chunk (per worker)
  uint64_t chunks = 0;  // n, one chunk per worker
  double frac_match = 0.3;
  uint64_t matches_per_pair() const;  // u
  uint64_t expected_rows() const { return chunks * chunks * matches_per_pair(); }
};

Value generate_build(const Params& p, uint64_t chunk);
Value generate_other(const Params& p, uint64_t chunk);

// Inner join on key of the build pieces with the other pieces (each a 2-column table):
// the result has three columns (key, build payload, other payload).
// Hands the loop back between buckets when its slice is over.
Task<Value> hash_join(TaskContext& ctx, const std::vector<const Value*>& build,
                      const std::vector<const Value*>& other);

}  // namespace commbench::app::merge
