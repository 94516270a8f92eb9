#include "workloads/hash_split.hpp"

#include <stdexcept>
#include <string>

#include "workloads/mix64.hpp"

namespace commbench::app {

uint32_t partition_of(int64_t key, uint32_t partitions) {
  uint64_t h = mix64(static_cast<uint64_t>(key)) >> 1;
  return static_cast<uint32_t>((static_cast<unsigned __int128>(h) * partitions) >> 63);
}

Task<Value> split(TaskContext& ctx, const Value& table, uint32_t partitions) {
  auto by_hash = [partitions](int64_t key) { return partition_of(key, partitions); };
  co_return co_await split_by(ctx, table, partitions, by_hash);
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
