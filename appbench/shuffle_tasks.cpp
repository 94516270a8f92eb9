#include "shuffle_tasks.hpp"

#include <stdexcept>

#include "workloads/hash_split.hpp"

namespace commbench::app {

namespace {

Task<Value> hash_split_task(TaskContext& ctx, const std::vector<const Value*>& deps,
                            std::span<const std::byte> args) {
  co_return co_await split(ctx, *deps.at(0), static_cast<uint32_t>(unpack_u64(args).at(0)));
}

// A view of one partition's columns, sharing the split's memory: no copy.
Task<Value> piece_task(TaskContext&, const std::vector<const Value*>& deps,
                       std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  co_return piece_view(*deps.at(0), a.at(0), a.at(1));
}

}  // namespace

void add_shuffle_functions(FunctionTable& functions) {
  functions.add("shuffle.hash_split", hash_split_task);
  functions.add("shuffle.piece", piece_task);
}

std::string piece_key(const std::string& prefix, uint64_t w, uint64_t q) {
  return prefix + "-piece-" + std::to_string(w) + "-" + std::to_string(q);
}

void add_piece_tasks(std::vector<TaskSpec>& tasks, const std::string& prefix,
                     const std::string& split_key, uint64_t w, uint64_t n, uint64_t columns) {
  for (uint64_t q = 0; q < n; ++q)
    tasks.push_back(
        {piece_key(prefix, w, q), "shuffle.piece", {split_key}, pack_u64({q, columns}), -1});
}

void add_hash_shuffle(std::vector<TaskSpec>& tasks, const std::string& prefix,
                      const std::vector<std::string>& inputs, uint64_t n, uint64_t columns) {
  for (uint64_t w = 0; w < inputs.size(); ++w) {
    std::string sk = prefix + "-split-" + std::to_string(w);
    tasks.push_back({sk, "shuffle.hash_split", {inputs[w]}, pack_u64({n}), -1});
    add_piece_tasks(tasks, prefix, sk, w, n, columns);
  }
}

std::vector<std::string> pieces_of(const std::string& prefix, uint64_t inputs, uint64_t q) {
  std::vector<std::string> keys;
  for (uint64_t w = 0; w < inputs; ++w) keys.push_back(piece_key(prefix, w, q));
  return keys;
}

}  // namespace commbench::app
