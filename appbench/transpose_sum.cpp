// transpose_sum: y = x + x.T on an N x N float64 matrix in C x C blocks, persisted on
// the workers (the paper's Fig. 7; dask-cuda local_cupy --operation transpose_sum).
// Block (i, j) of y needs x(i, j) and x(j, i); blocks sit in row-major runs per worker, so
// the worker computing y(i, j) pulls the partner x(j, i) from its peer. Timed: submit
// the y graph until every block is in memory. Then, untimed, each block's checksum is
// reduced to the client and compared with the value computed from the generator.
// --memory cuda: the blocks live in device memory, y is computed by the CUDA kernel
// (host kernels on the simulated device: app_device.hpp), and the checksums are taken of
// host copies, after the timed part.
#include <algorithm>
#include <cstring>

#include "app_session.hpp"
#include "block_graph.hpp"
#include "distributed/protocol.hpp"
#include "distributed/scheduler.hpp"
#include "workloads/transpose_kernels.hpp"
#ifdef COMMBENCH_APP_CUDA
#include "workloads/cuda/transpose_add_gpu.hpp"
#endif

using namespace commbench;
using namespace commbench::app;
using transpose::Grid;

namespace {

constexpr uint64_t kStripe = 64;  // rows per step of a kernel between slice checks

Grid grid_of(const std::vector<uint64_t>& a) {
  return Grid{a.at(0), a.at(1)};
}

// x is generated on the host and copied to the device once: it is persisted before timing.
Task<Value> make_x(const AppDevice& dev, TaskContext& ctx, const std::vector<const Value*>&,
                   std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  Grid g = grid_of(a);
  uint64_t bi = a.at(2), bj = a.at(3), rows = g.extent(bi), cols = g.extent(bj);
  Value v = make_value({rows * cols * sizeof(double)});
  double* out = v.part<double>(0).data();
  for (uint64_t r = 0; r < rows; r += kStripe) {
    transpose::fill_block_rows(out, g, bi, bj, r, std::min(rows, r + kStripe));
    if (ctx.slice_over()) co_await ctx.yield();
  }
  co_return dev.to_device(std::move(v));
}

Task<Value> add_transposed(const AppDevice& dev, TaskContext& ctx,
                           const std::vector<const Value*>& deps, std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  Grid g = grid_of(a);
  uint64_t rows = g.extent(a.at(2)), cols = g.extent(a.at(3));
  const Value& xa = *deps.at(0);
  const Value& xb = deps.size() > 1 ? *deps[1] : *deps[0];  // diagonal: its own partner
  if (xa.nbytes() != rows * cols * 8 || xb.nbytes() != rows * cols * 8 || xa.parts.size() != 1 ||
      xb.parts.size() != 1)
    throw std::runtime_error("transpose.add: input blocks have the wrong size");
  if (dev.cuda_kernels()) {
#ifdef COMMBENCH_APP_CUDA
    // On the default stream, so after the copies that made or delivered the inputs; waited
    // for here, so the block is in memory when the task reports it done.
    Value v = make_value({rows * cols * sizeof(double)}, MemoryKind::cuda);
    commbench::app::gpu::transpose_add(v.part<double>(0).data(), xa.part<const double>(0).data(),
                                       xb.part<const double>(0).data(), rows, cols);
    commbench::app::gpu::synchronize();
    co_return v;
#else
    throw std::logic_error("transpose.add: a device without the CUDA kernels in this build");
#endif
  }
  dev.synchronize();  // simulated device: the inputs' default-stream copies have landed
  Value v = make_value({rows * cols * sizeof(double)});
  double* y = v.part<double>(0).data();
  const double* pa = xa.part<const double>(0).data();
  const double* pb = xb.part<const double>(0).data();
  for (uint64_t r = 0; r < rows; r += kStripe) {
    transpose::transpose_add_rows(y, pa, pb, rows, cols, r, std::min(rows, r + kStripe));
    if (ctx.slice_over()) co_await ctx.yield();
  }
  co_return dev.to_device(std::move(v));
}

// Untimed: of a host copy of the block (device to host, complete when it returns).
Task<Value> checksum(const AppDevice& dev, TaskContext&, const std::vector<const Value*>& deps,
                     std::span<const std::byte> args) {
  auto a = unpack_u64(args);
  Grid g = grid_of(a);
  Value y = dev.to_host(*deps.at(0));
  uint64_t sum = transpose::checksum_block(y.part<const double>(0).data(), g, a.at(2), a.at(3));
  co_return words_value({sum});
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = 0, c = 0;
  AppSession s(
      argc, argv,
      {"transpose_sum",
       "transpose-sum (y = x + x.T, persisted) on a mini Dask runtime over the comm backends.\n"
       "Roles by rank (--layout), all traffic over --backend; one CSV row per --runs.\n"
       "Run with: mpirun -np 3 transpose_sum --backend tcp   (2 workers, compact layout)",
       {{"n", "--size"}, {"chunk", "--chunk"}},
       "default (8192 / 2048, for a 2-core 24 GiB machine) | paper (16384 / 4096, the "
       "paper's Fig. 7)"},
      {{"-n,--size", &n, "Matrix order N (default 8192; --preset paper: 16384)", 1,
        uint64_t{1} << 20},
       {"-c,--chunk", &c, "Block order C; N need not be a multiple (default 2048; paper: 4096)", 1,
        uint64_t{1} << 20}},
      [&](const AppOptions& o) {
        bool paper = o.preset == "paper";
        if (n == 0) n = paper ? 16384 : 8192;
        if (c == 0) c = paper ? 4096 : 2048;
        if (c > n)
          throw std::invalid_argument("--chunk (" + std::to_string(c) + ") exceeds --size (" +
                                      std::to_string(n) + ")");
      });
  s.functions().add("transpose.make_x", with_device(s, make_x));
  s.functions().add("transpose.add", with_device(s, add_transposed));
  s.functions().add("transpose.checksum", with_device(s, checksum));
  Grid g{n, c};
  uint64_t nb = g.blocks();
  // A worker holds its share of x and of y and the partner blocks it fetches: 3 n^2 / W.
  // (The session has already refused a layout without workers.)
  s.require_worker_memory(3 * n * n * 8 / static_cast<uint64_t>(s.topology().workers()),
                          "--size " + std::to_string(n));
  s.size_value = n;
  s.settings["n"] = n;
  s.settings["chunk"] = c;
  s.description_line = "x: " + std::to_string(n) + " x " + std::to_string(n) + " float64 (" +
                       std::to_string(n * n * 8 >> 20) + " MiB) in " + std::to_string(nb) + " x " +
                       std::to_string(nb) + " blocks of " + std::to_string(c) +
                       "^2, row-major runs per worker";

  return s.run([&](Client& client) -> Task<void> {
    int W = client.workers();
    auto args = [&](uint64_t i, uint64_t j) { return pack_u64({n, c, i, j}); };
    std::vector<TaskSpec> xs;
    for (uint64_t i = 0; i < nb; ++i)
      for (uint64_t j = 0; j < nb; ++j)
        xs.push_back(
            {block_key("x", i, j), "transpose.make_x", {}, args(i, j), block_holder(i, j, nb, W)});
    co_await client.compute(std::move(xs));
    uint64_t t0 = EventLoop::now_ns();
    std::vector<uint64_t> expected = transpose::expected_checksums(g);
    s.note("x persisted; expected checksums computed from the generator in " +
           std::to_string((EventLoop::now_ns() - t0) / 1'000'000) + " ms");

    auto graph = [&](size_t r) {
      std::string tag = "y" + std::to_string(r);
      std::vector<TaskSpec> ys;
      for (uint64_t i = 0; i < nb; ++i)
        for (uint64_t j = 0; j < nb; ++j) {
          std::vector<std::string> deps{block_key("x", i, j)};
          if (i != j) deps.push_back(block_key("x", j, i));
          ys.push_back({block_key(tag.c_str(), i, j), "transpose.add", deps, args(i, j), -1});
        }
      return ys;
    };
    // Each block's checksum, reduced to the client and compared with the generator's.
    auto check = [&](size_t r, RunRecord& rec) -> Task<std::vector<KeyInfo>> {
      return check_block_checksums(client, "y" + std::to_string(r), "transpose.checksum", n, c, nb,
                                   expected, rec);
    };
    co_await s.repeat(client, graph, check);
  });
}
