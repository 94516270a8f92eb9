#include "block_graph.hpp"

#include "distributed/protocol.hpp"

namespace commbench::app {

int32_t block_holder(uint64_t i, uint64_t j, uint64_t nb, int workers) {
  return static_cast<int32_t>((i * nb + j) * static_cast<uint64_t>(workers) / (nb * nb));
}

std::string block_key(const std::string& prefix, uint64_t i, uint64_t j) {
  return prefix + "-" + std::to_string(i) + "-" + std::to_string(j);
}

Task<std::vector<KeyInfo>> check_block_checksums(Client& client, std::string tag, std::string func,
                                                 uint64_t n, uint64_t c, uint64_t nb,
                                                 const std::vector<uint64_t>& expected,
                                                 RunRecord& rec) {
  std::vector<TaskSpec> sums;
  for (uint64_t i = 0; i < nb; ++i)
    for (uint64_t j = 0; j < nb; ++j)
      sums.push_back({block_key("sum-" + tag, i, j),
                      func,
                      {block_key(tag, i, j)},
                      pack_u64({n, c, i, j}),
                      -1});
  auto sum_keys = co_await client.compute(std::move(sums));
  auto values = co_await client.gather(sum_keys);
  for (uint64_t b = 0; b < nb * nb; ++b) {
    uint64_t got[1] = {0};
    if (!value_words(values[b], got) || got[0] != expected[b]) ++rec.wrong;
  }
  co_return sum_keys;
}

}  // namespace commbench::app
