// matmul: y = x . x^T on an N x N float64 matrix in C x C blocks, persisted on the
// workers (the SC'22 talk's Dask matrix multiplication, `a.dot(b)` with persist()). The
// graph is the one Dask's blockwise dot builds: a partial product per (i, j, k),
// x(i, k) . x(j, k)^T, on the worker that holds most of its inputs (its partner block is
// fetched from a peer), then y(i, j) as the sum over k of the partials (fetched from
// wherever they were computed). The block product is OpenBLAS's dgemm on one thread, the
// same library Debian's numpy hands Dask, so the comparison isolates the runtime. Then,
// untimed, each block's checksum is reduced to the client and compared with the value
// computed from the generator alone (matmul_kernels.hpp says how, without multiplying).
#include <algorithm>
#include <cstring>

#include "app_session.hpp"
#include "block_graph.hpp"
#include "distributed/protocol.hpp"
#include "distributed/scheduler.hpp"
#include "workloads/matmul_kernels.hpp"

using namespace commbench;
using namespace commbench::app;
using matmul::Grid;

namespace {

// Rows of a block product per BLAS call: the event loop gets a turn between calls, so
// transfers keep moving while a block is multiplied. About 2^25 multiply-adds (a few ms)
// per call: 128 rows of a 512^2 block, 32 of a 1024^2 one, at least 16.
uint64_t panel_rows(uint64_t c) {
  return std::clamp<uint64_t>((uint64_t{1} << 25) / (c * c), 16, 512);
}
// At most this many blocks per dimension: the graph has nb^3 partial products.
constexpr uint64_t kMaxBlocks = 64;

Grid grid_of(const std::vector<uint64_t>& a) {
  return Grid{a.at(0), a.at(1)};
}

Task<Value> make_x(TaskContext&, const std::vector<const Value*>&,
                   std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  Grid g = grid_of(a);
  Value v = make_value({g.c * g.c * sizeof(double)});
  matmul::fill_block(v.part<double>(0).data(), g, a.at(2), a.at(3));
  co_return v;
}

const Value& checked_block(const Value& v, const Grid& g, const char* what) {
  if (v.parts.size() != 1 || v.nbytes() != g.c * g.c * sizeof(double))
    throw std::runtime_error(std::string("matmul: ") + what + " has the wrong size");
  return v;
}

// deps: x(i, k), then x(j, k) (absent on the diagonal, i == j).
Task<Value> partial(TaskContext& ctx, const std::vector<const Value*>& deps,
                    std::span<const std::byte> args) {
  Grid g = grid_of(unpack_u64(args));
  const Value& a = *deps.at(0);
  const Value& b = deps.size() > 1 ? *deps[1] : *deps[0];
  checked_block(a, g, "an x block");
  checked_block(b, g, "an x block");
  Value v = make_value({g.c * g.c * sizeof(double)});
  double* out = v.part<double>(0).data();
  const uint64_t panel = panel_rows(g.c);
  for (uint64_t r = 0; r < g.c; r += panel) {
    matmul::multiply_transposed_rows(out, a.part<const double>(0).data(),
                                     b.part<const double>(0).data(), g.c, r,
                                     std::min(g.c, r + panel));
    if (ctx.slice_over()) co_await ctx.yield();
  }
  co_return v;
}

// deps: the nb partial products of one block of y.
Task<Value> sum(TaskContext& ctx, const std::vector<const Value*>& deps,
                std::span<const std::byte> args) {
  Grid g = grid_of(unpack_u64(args));
  size_t count = g.c * g.c;
  Value v = make_value({count * sizeof(double)});
  double* y = v.part<double>(0).data();
  std::memcpy(y, checked_block(*deps.at(0), g, "a partial").parts[0].data, count * sizeof(double));
  for (size_t k = 1; k < deps.size(); ++k) {
    const double* p = checked_block(*deps[k], g, "a partial").part<const double>(0).data();
    const size_t step = size_t{1} << 18;  // 2 MiB of each partial per turn
    for (size_t at = 0; at < count; at += step) {
      matmul::accumulate(y + at, p + at, std::min(count - at, step));
      if (ctx.slice_over()) co_await ctx.yield();
    }
  }
  co_return v;
}

Task<Value> checksum(TaskContext&, const std::vector<const Value*>& deps,
                     std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  Grid g = grid_of(a);
  uint64_t c = matmul::checksum_block(
      checked_block(*deps.at(0), g, "a y block").part<const double>(0).data(), g, a.at(2), a.at(3));
  co_return words_value({c});
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = 0, c = 0;
  AppSession s(
      argc, argv,
      {"matmul",
       "matmul (y = x . x.T, persisted; Dask's blockwise dot: partial products, then their\n"
       "sum) on a mini Dask runtime over the comm backends, one OpenBLAS thread per worker.\n"
       "Run with: mpirun -np 3 matmul --backend tcp   (2 workers, compact layout)",
       {{"n", "--size"}, {"chunk", "--chunk"}},
       "default (4096 / 1024, for a 2-core 24 GiB machine) | paper (22528 / 5632: a 4 GB "
       "matrix, the SC'22 talk's size)"},
      {{"-n,--size", &n, "Matrix order N (default 4096; --preset paper: 22528)", 1,
        uint64_t{1} << 20},
       {"-c,--chunk", &c, "Block order C; must divide N (default 1024; --preset paper: 5632)", 1,
        1 << 20}},
      [&](const AppOptions& o) {
        bool paper = o.preset == "paper";
        if (n == 0) n = paper ? 22528 : 4096;
        if (c == 0) c = paper ? 5632 : 1024;
        if (c > n)
          throw std::invalid_argument("--chunk (" + std::to_string(c) + ") exceeds --size (" +
                                      std::to_string(n) + ")");
        if (n % c != 0)
          throw std::invalid_argument("--chunk (" + std::to_string(c) +
                                      ") does not divide --size (" + std::to_string(n) +
                                      "): blocks must be square and equal");
        if (n / c > kMaxBlocks)
          throw std::invalid_argument("--size / --chunk = " + std::to_string(n / c) +
                                      " blocks per dimension; at most " +
                                      std::to_string(kMaxBlocks) + " (the graph has nb^3 tasks)");
      });
  matmul::use_one_blas_thread();
  s.functions().add("matmul.make_x", make_x);
  s.functions().add("matmul.partial", partial);
  s.functions().add("matmul.sum", sum);
  s.functions().add("matmul.checksum", checksum);
  Grid g{n, c};
  uint64_t nb = g.blocks();
  // A worker holds its share of x and y and of the nb^3 partial products (n^2 nb in all)
  // plus the blocks it fetches: about (nb + 3) n^2 / W doubles.
  s.require_worker_memory((nb + 3) * n * n * 8 / static_cast<uint64_t>(s.topology().workers()),
                          "--size " + std::to_string(n) + " --chunk " + std::to_string(c));
  s.size_value = n;
  s.settings["n"] = n;
  s.settings["chunk"] = c;
  s.settings["blas"] = "openblas, 1 thread";
  s.description_line = "x: " + std::to_string(n) + " x " + std::to_string(n) + " float64 (" +
                       std::to_string(n * n * 8 >> 20) + " MiB) in " + std::to_string(nb) + " x " +
                       std::to_string(nb) + " blocks of " + std::to_string(c) + "^2; " +
                       std::to_string(nb * nb * nb) + " partial products";

  return s.run([&](Client& client) -> Task<void> {
    int W = client.workers();
    auto args = [&](uint64_t i, uint64_t j) { return pack_u64({n, c, i, j}); };
    std::vector<TaskSpec> xs;
    for (uint64_t i = 0; i < nb; ++i)
      for (uint64_t k = 0; k < nb; ++k)
        xs.push_back(
            {block_key("x", i, k), "matmul.make_x", {}, args(i, k), block_holder(i, k, nb, W)});
    co_await client.compute(std::move(xs));
    uint64_t t0 = EventLoop::now_ns();
    std::vector<uint64_t> expected = matmul::expected_checksums(g);
    s.note("x persisted; expected checksums computed from the generator in " +
           std::to_string((EventLoop::now_ns() - t0) / 1'000'000) + " ms");

    auto graph = [&](size_t r) {
      std::string t = "r" + std::to_string(r);
      std::vector<TaskSpec> tasks;
      for (uint64_t i = 0; i < nb; ++i)
        for (uint64_t j = 0; j < nb; ++j) {
          std::vector<std::string> parts;
          for (uint64_t k = 0; k < nb; ++k) {
            std::vector<std::string> deps{block_key("x", i, k)};
            if (i != j) deps.push_back(block_key("x", j, k));
            parts.push_back(block_key(t + "-p" + std::to_string(k), i, j));
            tasks.push_back({parts.back(), "matmul.partial", deps, args(i, j), -1});
          }
          tasks.push_back({block_key(t + "-y", i, j), "matmul.sum", parts, args(i, j), -1});
        }
      return tasks;
    };
    auto check = [&](size_t r, RunRecord& rec) -> Task<std::vector<KeyInfo>> {
      return check_block_checksums(client, "r" + std::to_string(r) + "-y", "matmul.checksum", n, c,
                                   nb, expected, rec);
    };
    co_await s.repeat(client, graph, check);
  });
}
