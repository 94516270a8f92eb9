// What the block-matrix workloads (transpose_sum, matmul) share: where a block of x lives,
// how blocks are named, and the untimed check that reduces every block's checksum to the
// client and compares it with the one computed from the generator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app_session.hpp"

namespace commbench::app {

// Block (i, j) of an nb x nb grid on W workers: row-major runs, one per worker, as Dask
// co-assigns root tasks. Round-robin would put a block and its partner on one worker
// whenever nb = 1 mod W (transpose) or W divides nb (matmul), and move nothing.
int32_t block_holder(uint64_t i, uint64_t j, uint64_t nb, int workers);

// "prefix-i-j".
std::string block_key(const std::string& prefix, uint64_t i, uint64_t j);

// Runs `func` (args: n, c, i, j; it returns the block's checksum as one uint64) on every
// block `tag`-i-j, gathers the sums and counts each that differs from expected[i * nb + j]
// in rec.wrong. Returns the keys it made (the session releases them). The strings are taken
// by value: a lazy coroutine must not hold references to its caller's temporaries.
Task<std::vector<KeyInfo>> check_block_checksums(Client& client, std::string tag, std::string func,
                                                 uint64_t n, uint64_t c, uint64_t nb,
                                                 const std::vector<uint64_t>& expected,
                                                 RunRecord& rec);

}  // namespace commbench::app
