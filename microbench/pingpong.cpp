// pingpong: one-way latency (half the round trip), OSU's method, for every --backend
// measured interleaved. Rank 0 times each round trip; the table and CSV report the
// median, mean, minimum and 99th percentile of the one-way figure in microseconds.
// The timed loop is below, once for the raw baselines (a template over their blocking
// primitives) and once for the coroutine comm.
#include <algorithm>
#include <vector>

#include "drivers/run_loop.hpp"
#include "harness/pattern.hpp"
#include "harness/stats.hpp"
#include "session/bench_session.hpp"
#include "session/point_cells.hpp"

using namespace commbench;

namespace {

// --help's first lines.
constexpr const char* kHelp =
    "Ping-pong latency over the coroutine comm backends and their raw baselines.\n"
    "Run with: mpirun -np 2 pingpong --backend tcp,raw-tcp";

// One repetition: `iters` round trips; rank 0 sends first and stores each round trip's
// duration in samples_ns[i]. Round trip i carries pattern seeds seed + 2i (rank 0's
// message) and seed + 2i + 1 (rank 1's). Each returns the wrong bytes this rank received.
// PerTrip = false (--timing per-repetition): one clock pair around the whole loop, as OSU
// and NetPIPE time, and every samples_ns[i] is the loop's mean (validation is then timed).
// A template parameter, so the per-trip loop has no branch it did not have.
struct RoundTrips : Repetition {
  uint64_t* samples_ns = nullptr;
};

// The loop's mean round trip in every sample (per-repetition timing).
inline void fill_mean(const RoundTrips& r, uint64_t start_ns) {
  const uint64_t mean = (EventLoop::now_ns() - start_ns) / std::max<size_t>(r.iters, 1);
  std::fill(r.samples_ns, r.samples_ns + r.iters, mean);
}

template <bool PerTrip, RawTransport T>
size_t round_trips(const RoundTrips& r, T& t) {
  const bool initiator = t.rank() == 0;
  std::byte* out = t.send_buffer();
  std::byte* in = t.recv_buffer();
  size_t wrong = 0;
  const uint64_t start = PerTrip ? 0 : EventLoop::now_ns();
  for (size_t i = 0; i < r.iters; ++i) {
    uint64_t mine = r.seed + 2 * i + (initiator ? 0 : 1);
    uint64_t theirs = r.seed + 2 * i + (initiator ? 1 : 0);
    if (r.validate) fill_pattern(out, r.size, mine);
    if (initiator) {
      uint64_t t0 = PerTrip ? EventLoop::now_ns() : 0;
      t.send(out, r.size);
      t.recv(in, r.size);
      if constexpr (PerTrip) r.samples_ns[i] = EventLoop::now_ns() - t0;
    } else {
      t.recv(in, r.size);
      if (r.validate) wrong += check_pattern(in, r.size, theirs);
      t.send(out, r.size);
      continue;
    }
    if (r.validate) wrong += check_pattern(in, r.size, theirs);
  }
  if constexpr (!PerTrip)
    if (initiator) fill_mean(r, start);
  return wrong;
}

template <bool PerTrip>
Task<size_t> round_trips(RoundTrips r, CommDriver& c) {
  const bool initiator = c.rank() == 0;
  Message out = c.outgoing(r.size);
  Message& in = c.incoming();
  size_t wrong = 0;
  const uint64_t start = PerTrip ? 0 : EventLoop::now_ns();
  for (size_t i = 0; i < r.iters; ++i) {
    uint64_t mine = r.seed + 2 * i + (initiator ? 0 : 1);
    uint64_t theirs = r.seed + 2 * i + (initiator ? 1 : 0);
    if (r.validate) c.fill(r.size, mine);
    if (initiator) {
      uint64_t t0 = PerTrip ? EventLoop::now_ns() : 0;
      co_await c.send(out);
      co_await c.recv(in);
      if constexpr (PerTrip) {
        c.settle();  // a round trip ends with the reply usable, stream-ordered reads too
        r.samples_ns[i] = EventLoop::now_ns() - t0;
      }
    } else {
      co_await c.recv(in);
      if (r.validate) wrong += c.check(in, r.size, theirs);
      co_await c.send(out);
      continue;
    }
    if (r.validate) wrong += c.check(in, r.size, theirs);
  }
  c.settle();  // the last read's copies, where they complete in stream order (as
               // nccl-tests synchronises once per timed loop: per-repetition timing)
  if constexpr (!PerTrip)
    if (initiator) fill_mean(r, start);
  co_return wrong;
}

// NetPIPE's statistic (its best trial's mean), so a comparison with it is like for like:
// the lowest mean over one repetition's samples, each repetition `per_rep` of them in turn.
double best_rep_avg(const std::vector<double>& samples, size_t per_rep) {
  double best = 0;
  for (size_t at = 0; per_rep && at + per_rep <= samples.size(); at += per_rep) {
    double sum = 0;
    for (size_t i = at; i < at + per_rep; ++i) sum += samples[i];
    const double avg = sum / static_cast<double>(per_rep);
    if (at == 0 || avg < best) best = avg;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  BenchSession s(argc, argv, "pingpong", BenchKind::pingpong, kHelp);
  const BenchOptions& o = s.options();
  std::vector<uint64_t> samples;
  uint64_t seed = 1;

  auto run = [&](Driver& d, size_t size, size_t n) {
    samples.resize(std::max(samples.size(), n));
    RoundTrips r{{size, n, seed, o.validate}, samples.data()};
    seed += 2 * n;
    return run_loop(d, size, [&](auto&... on) {
      return o.time_per_trip ? round_trips<true>(r, on...) : round_trips<false>(r, on...);
    });
  };
  auto warm = [&](Driver& d, size_t size) { run(d, size, s.warmup_for(size)); };
  auto rep = [&](Driver& d, size_t, size_t size, size_t rep_no, Point& p) {
    size_t n = s.iters_per_rep(size);
    p.wrong += run(d, size, n);
    p.iterations += n;
    for (size_t i = 0; i < n; ++i) p.samples.push_back(static_cast<double>(samples[i]) / 2000.0);
    s.record_samples(d, size, rep_no, samples.data(), n);  // nothing without --samples
  };
  auto emit = [&](Driver& d, size_t size, Point& p, ResultRow& row) {
    // Before summarize, which sorts the samples in place.
    const double best_rep = best_rep_avg(p.samples, s.iters_per_rep(size));
    Summary sum = summarize(p.samples);
    row.set("benchmark", std::string("pingpong"))
        .set("latency_us_p50", sum.p50)
        .set("latency_us_avg", sum.avg)
        .set("latency_us_min", sum.min)
        .set("latency_us_p90", sum.p90)
        .set("latency_us_p99", sum.p99)
        .set("latency_us_p999", sum.p999)
        .set("latency_us_max", sum.max)
        .set("latency_us_best_rep_avg", best_rep);
    s.print_row(point_cells(size, d,
                            {sum.p50, sum.avg, sum.min, sum.p90, sum.p99, sum.p999, sum.max}, 3,
                            o.validate, p.wrong));
  };
  s.sweep(
      warm, rep, emit,
      {"size", "backend", "progress", "p50", "avg", "min", "p90", "p99", "p99.9", "max", "wrong"},
      {"bytes", "", "", "us", "us", "us", "us", "us", "us", "us", "bytes"});
  return s.finish();
}
