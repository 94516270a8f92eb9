// sort's data and kernels: a sample sort of (key, payload) rows. Each chunk offers a few
// sampled keys; the samples of every chunk give n - 1 splitters; each chunk is cut into
// n ranges by them (the all-to-all's pieces); partition q sorts what it received. Then
// partition q holds keys in [splitter q-1, splitter q), sorted, and the partitions in
// order are the whole table sorted.
//
// Rows are numbered globally, g = chunk * rows + i; row g has key mix64(g + seed) >> 1
// (uniform over [0, 2^63)) and payload g, so a (key, payload) pair names its row and a
// sum of hashes of the pairs is a checksum of the multiset of rows.
#pragma once

#include <cstdint>
#include <vector>

#include "distributed/functions.hpp"
#include "distributed/value.hpp"

namespace commbench::app::sort {

struct Params {
  uint64_t rows = 0;     // rows per chunk (per worker)
  uint64_t chunks = 0;   // one chunk per worker
  uint64_t samples = 0;  // sampled keys per chunk
  uint64_t total_rows() const { return rows * chunks; }
};

int64_t key_of_row(uint64_t g);

// Chunk `chunk`: columns key, payload (int64).
Value generate(const Params& p, uint64_t chunk);
// `count` keys of the table at positions spread evenly through it (one column).
Value sample(const Value& table, uint64_t count);
// The n - 1 splitters (one column, ascending) from every chunk's samples: the sorted
// samples' n-quantiles.
Value splitters(const std::vector<const Value*>& samples, uint32_t partitions);
// Partition of a key: how many splitters are <= it (0 .. splitters).
uint32_t range_of(int64_t key, const int64_t* splitters, size_t count);
// Cuts the table into splitters + 1 ranges: parts 2q, 2q+1 are range q's columns.
// (Both hand the loop back between stripes of rows when the slice is over.)
Task<Value> range_split(TaskContext& ctx, const Value& table, const Value& splitters);
// The rows of every piece (2 columns each), sorted by key (a bucket pass by key range,
// then a sort per small bucket).
Task<Value> sort_pieces(TaskContext& ctx, const std::vector<const Value*>& pieces);

// What validates a sorted partition.
struct Summary {
  uint64_t rows = 0;
  int64_t min = 0, max = 0;  // meaningful when rows > 0
  uint64_t unsorted = 0;     // adjacent pairs out of order
  uint64_t checksum = 0;     // sum of hashes of its (key, payload) pairs
};
Summary summarize(const Value& sorted);
uint64_t pair_hash(int64_t key, int64_t payload);
// The whole table's row count and checksum, from the generator alone.
Summary expected_total(const Params& p);

}  // namespace commbench::app::sort
