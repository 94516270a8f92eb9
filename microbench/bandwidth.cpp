// bandwidth: windowed throughput, OSU's method (osu_bw; with --bidirectional osu_bibw):
// a window of messages in flight, then a 1-byte ack. Every --backend is measured
// interleaved; the figure is the median over repetitions in MB/s (10^6 bytes/s).
#include <cstdio>

#include "harness/bench_session.hpp"
#include "harness/stats.hpp"

using namespace commbench;

int main(int argc, char** argv) {
  BenchSession s(argc, argv, "bandwidth", BenchKind::bandwidth,
                 "Windowed bandwidth over the coroutine comm backends and their raw baselines.\n"
                 "Run with: mpirun -np 2 bandwidth --backend tcp,raw-tcp");
  const BenchOptions& o = s.options();
  uint64_t seed = 1;
  auto warm = [&](Driver& d, size_t size) {
    size_t n = s.warmup_for(size);
    d.bandwidth(size, n, o.window, o.bidirectional, seed, o.validate);
    seed += n;
  };
  auto rep = [&](Driver& d, size_t, size_t size, size_t, Point& p) {
    size_t n = s.iters_for(size) / o.reps;
    s.boot().barrier();  // both ranks start the repetition together
    uint64_t t0 = EventLoop::now_ns();
    p.wrong += d.bandwidth(size, n, o.window, o.bidirectional, seed, o.validate);
    double secs = static_cast<double>(EventLoop::now_ns() - t0) / 1e9;
    seed += n;
    p.iterations += n;
    double bytes = static_cast<double>(size) * static_cast<double>(o.window) *
                   static_cast<double>(n) * (o.bidirectional ? 2.0 : 1.0);
    p.samples.push_back(bytes / secs / 1e6);
  };
  auto emit = [&](Driver& d, size_t size, Point& p, ResultRow& row) {
    Summary sum = summarize(p.samples);
    row.set("benchmark", std::string(o.bidirectional ? "bibw" : "bandwidth"))
        .set("window", o.window)
        .set("bandwidth_MBps", sum.p50)
        .set("bandwidth_MBps_min", sum.min)
        .set("bandwidth_MBps_max", sum.max);
    char cells[3][32];
    std::snprintf(cells[0], 32, "%.1f", sum.p50);
    std::snprintf(cells[1], 32, "%.1f", sum.min);
    std::snprintf(cells[2], 32, "%.1f", sum.max);
    s.print_row({std::to_string(size), d.backend(), d.progress(), cells[0], cells[1], cells[2],
                 o.validate ? std::to_string(p.wrong) : "-"});
  };
  s.sweep(warm, rep, emit, {"size", "backend", "progress", "MB/s", "min", "max", "wrong"},
          {"bytes", "", "", "p50", "MB/s", "MB/s", "bytes"});
  return s.finish();
}
