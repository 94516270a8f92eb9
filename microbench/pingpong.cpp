// pingpong: one-way latency (half the round trip), OSU's method, for every --backend
// measured interleaved. Rank 0 times each round trip; the table and CSV report the
// median, mean, minimum and 99th percentile of the one-way figure in microseconds.
#include <cstdio>

#include "harness/bench_session.hpp"
#include "harness/sizes.hpp"
#include "harness/stats.hpp"

using namespace commbench;

int main(int argc, char** argv) {
  BenchSession s(argc, argv, "pingpong", BenchKind::pingpong,
                 "Ping-pong latency over the coroutine comm backends and their raw baselines.\n"
                 "Run with: mpirun -np 2 pingpong --backend tcp,raw-tcp");
  std::vector<uint64_t> samples;
  uint64_t seed = 1;

  auto warm = [&](Driver& d, size_t size) {
    size_t n = s.warmup_for(size);
    samples.resize(std::max(samples.size(), n));
    d.pingpong(size, n, seed, s.options().validate, samples.data());
    seed += 2 * n;
  };
  auto rep = [&](Driver& d, size_t, size_t size, size_t, Point& p) {
    size_t n = s.iters_for(size) / s.options().reps;
    samples.resize(std::max(samples.size(), n));
    p.wrong += d.pingpong(size, n, seed, s.options().validate, samples.data());
    seed += 2 * n;
    p.iterations += n;
    for (size_t i = 0; i < n; ++i) p.samples.push_back(static_cast<double>(samples[i]) / 2000.0);
  };
  auto emit = [&](Driver& d, size_t size, Point& p, ResultRow& row) {
    Summary sum = summarize(p.samples);
    row.set("benchmark", std::string("pingpong"))
        .set("latency_us_p50", sum.p50)
        .set("latency_us_avg", sum.avg)
        .set("latency_us_min", sum.min)
        .set("latency_us_p99", sum.p99);
    char cells[5][32];
    std::snprintf(cells[0], 32, "%.3f", sum.p50);
    std::snprintf(cells[1], 32, "%.3f", sum.avg);
    std::snprintf(cells[2], 32, "%.3f", sum.min);
    std::snprintf(cells[3], 32, "%.3f", sum.p99);
    s.print_row({std::to_string(size), d.backend(), d.progress(), cells[0], cells[1], cells[2],
                 cells[3], s.options().validate ? std::to_string(p.wrong) : "-"});
  };
  s.sweep(warm, rep, emit,
          {"size", "backend", "progress", "p50", "avg", "min", "p99", "wrong"},
          {"bytes", "", "", "us", "us", "us", "us", "bytes"});
  return s.finish();
}
