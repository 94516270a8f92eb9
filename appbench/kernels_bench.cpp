// The compute floor of each application, per worker, on this machine (Google Benchmark):
// what one worker's share of the default problem costs on one core with no communication
// and no runtime, beside the machine's one-core memory bandwidth (a 256 MiB memcpy), since
// transpose-sum, merge, groupby and sort are memory-bound. An app's wall time over these
// floors is what the runtime and the transfers add.
//   build/openmpi/appbench/kernels_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "workloads/groupby_kernels.hpp"
#include "workloads/hash_split.hpp"
#include "workloads/matmul_kernels.hpp"
#include "workloads/merge_kernels.hpp"
#include "workloads/sort_kernels.hpp"
#include "workloads/transpose_kernels.hpp"

using namespace commbench;
using namespace commbench::app;

namespace {

// Runs kernel coroutines to their end; a slice longer than any kernel, so none yields.
struct Runner {
  Runner() { install_pooled_host_allocator(); }
  template <typename T>
  T operator()(Task<T> t) {
    return loop.run(std::move(t));
  }
  EventLoop loop;
  TaskContext ctx{loop, uint64_t{1} << 62};
};

void BM_Memcpy256MiB(benchmark::State& state) {
  std::vector<char> a(size_t{256} << 20, 1), b(a.size(), 2);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), a.size());
    benchmark::DoNotOptimize(b.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * a.size()));
}
BENCHMARK(BM_Memcpy256MiB)->Unit(benchmark::kMillisecond)->UseRealTime();

// transpose-sum 8192^2 in 2048^2 blocks on 2 workers: 8 block adds per worker.
void BM_TransposeAddEightBlocks(benchmark::State& state) {
  install_pooled_host_allocator();
  transpose::Grid g{8192, 2048};
  size_t bytes = 2048 * 2048 * 8;
  Value a = make_value({bytes}), b = make_value({bytes}), y = make_value({bytes});
  transpose::fill_block_rows(a.part<double>(0).data(), g, 0, 1, 0, 2048);
  transpose::fill_block_rows(b.part<double>(0).data(), g, 1, 0, 0, 2048);
  for (auto _ : state)
    for (int k = 0; k < 8; ++k)
      transpose::transpose_add_rows(y.part<double>(0).data(), a.part<double>(0).data(),
                                    b.part<double>(0).data(), 2048, 2048, 0, 2048);
}
BENCHMARK(BM_TransposeAddEightBlocks)->Unit(benchmark::kMillisecond)->UseRealTime();

// merge, 1e6 rows per worker on 2 workers: split both tables, join 2 + 2 pieces.
void BM_MergeWorkerShare(benchmark::State& state) {
  Runner run;
  merge::Params p{1'000'000, 2, 0.3};
  Value b0 = merge::generate_build(p, 0), b1 = merge::generate_build(p, 1);
  Value o0 = merge::generate_other(p, 0), o1 = merge::generate_other(p, 1);
  Value sb1 = run(split(run.ctx, b1, 2)), so1 = run(split(run.ctx, o1, 2));
  for (auto _ : state) {
    Value sb0 = run(split(run.ctx, b0, 2)), so0 = run(split(run.ctx, o0, 2));
    Value pb0 = piece_view(sb0, 0, 2), pb1 = piece_view(sb1, 0, 2), po0 = piece_view(so0, 0, 2),
          po1 = piece_view(so1, 0, 2);
    std::vector<const Value*> build{&pb0, &pb1}, other{&po0, &po1};
    benchmark::DoNotOptimize(run(merge::hash_join(run.ctx, build, other)).parts.data());
  }
}
BENCHMARK(BM_MergeWorkerShare)->Unit(benchmark::kMillisecond)->UseRealTime();

// groupby, 1e6 rows per worker and 1e6 groups on 2 workers: partial, split, final.
void BM_GroupbyWorkerShare(benchmark::State& state) {
  Runner run;
  groupby::Params p{1'000'000, 2, 1'000'000, uint64_t{1} << 40};
  Value c0 = groupby::generate(p, 0);
  for (auto _ : state) {
    Value part = run(groupby::partial_aggregate(run.ctx, c0, p.groups));
    Value sp = run(split(run.ctx, part, 2));
    Value q0 = piece_view(sp, 0, 3), q1 = piece_view(sp, 1, 3);  // stands in for the peer's piece
    std::vector<const Value*> pieces{&q0, &q1};
    benchmark::DoNotOptimize(run(groupby::final_aggregate(run.ctx, pieces, p.groups)).parts.data());
  }
}
BENCHMARK(BM_GroupbyWorkerShare)->Unit(benchmark::kMillisecond)->UseRealTime();

// sort, 1e6 rows per worker on 2 workers: range split, then sort half of both chunks.
void BM_SortWorkerShare(benchmark::State& state) {
  Runner run;
  sort::Params p{1'000'000, 2, 256};
  Value c0 = sort::generate(p, 0), c1 = sort::generate(p, 1);
  Value s0 = sort::sample(c0, 256), s1 = sort::sample(c1, 256);
  Value spl = sort::splitters({&s0, &s1}, 2);
  Value r1 = run(sort::range_split(run.ctx, c1, spl));
  for (auto _ : state) {
    Value r0 = run(sort::range_split(run.ctx, c0, spl));
    Value p0 = piece_view(r0, 0, 2), p1 = piece_view(r1, 0, 2);
    std::vector<const Value*> pieces{&p0, &p1};
    benchmark::DoNotOptimize(run(sort::sort_pieces(run.ctx, pieces)).parts.data());
  }
}
BENCHMARK(BM_SortWorkerShare)->Unit(benchmark::kMillisecond)->UseRealTime();

// matmul 2048^2 in 512^2 blocks on 2 workers: 4^3 = 64 block products, 32 per worker.
void BM_MatmulWorkerShare(benchmark::State& state) {
  matmul::use_one_blas_thread();
  matmul::Grid g{2048, 512};
  std::vector<double> a(512 * 512), b(512 * 512), out(512 * 512);
  matmul::fill_block(a.data(), g, 0, 0);
  matmul::fill_block(b.data(), g, 1, 0);
  for (auto _ : state)
    for (int k = 0; k < 32; ++k)
      matmul::multiply_transposed_rows(out.data(), a.data(), b.data(), 512, 0, 512);
}
BENCHMARK(BM_MatmulWorkerShare)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
