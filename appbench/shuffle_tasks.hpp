// The all-to-all of a Dask task shuffle, as graph pieces every shuffling workload shares
// (merge, groupby, sort): a task splits its input into one table per output partition, and
// one view task per partition selects a piece (Dask's getitem on the split), so the worker
// computing partition q pulls exactly its piece from every peer.
#pragma once

#include <string>
#include <vector>

#include "distributed/functions.hpp"
#include "distributed/protocol.hpp"

namespace commbench::app {

// Registers "shuffle.hash_split" (args: partitions; the input's first column is the key)
// and "shuffle.piece" (args: partition, columns).
void add_shuffle_functions(FunctionTable& functions);

// The name of piece q of input w of a shuffle called `prefix`.
std::string piece_key(const std::string& prefix, uint64_t w, uint64_t q);

// Appends, for input `split_key` (already a split table of `columns` columns per
// partition), the n view tasks that select its pieces: piece_key(prefix, w, q).
void add_piece_tasks(std::vector<TaskSpec>& tasks, const std::string& prefix,
                     const std::string& split_key, uint64_t w, uint64_t n, uint64_t columns);

// Appends a hash shuffle of `inputs` (tables of `columns` int64 columns, key first) into
// n partitions: one split task per input (prefix-split-w), then its pieces.
void add_hash_shuffle(std::vector<TaskSpec>& tasks, const std::string& prefix,
                      const std::vector<std::string>& inputs, uint64_t n, uint64_t columns);

// The n piece keys output partition q gathers, one from every input.
std::vector<std::string> pieces_of(const std::string& prefix, uint64_t inputs, uint64_t q);

}  // namespace commbench::app
