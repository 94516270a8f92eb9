// soak: ping-pong plus connect/close churn on each backend for a while, sampling the
// resident set size (VmRSS of /proc/self/status) and glibc's heap counters every few
// seconds. Runs listener and connector in this process (mpirun -np 1 for the mpi
// backend). The 10-minute profile: tests/reliability/soak.sh.
//
// Verdict per backend: the least-squares slope of RSS against connect/close cycles over
// the samples after warm-up, in KiB per 1,000 cycles, must stay within
// --max-slope-kib-per-kcycle; and the growth between the first sample after warm-up and
// the last within --max-growth-kib. The slope is the figure a long run cares about (what
// each connection leaves behind); the growth bound catches a step the slope would average
// away. The heap-in-use slope (mallinfo2: bytes malloc handed out and not freed) is
// printed beside it: RSS growing while it stays flat is the allocator keeping freed
// memory (fragmentation), not a leak; both growing is memory still referenced.
#include <malloc.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "comm/errors.hpp"
#include "comm/registry.hpp"
#include "echo_server.hpp"
#include "pattern_message.hpp"
#include "reliability_support.hpp"
#include "runtime/timeout.hpp"

using namespace commbench;
using namespace commbench::testing;
using namespace std::chrono_literals;

namespace {

struct Counts {
  size_t round_trips = 0, cycles = 0, wrong = 0;
};

struct Sample {
  double seconds;
  size_t cycles, round_trips;
  size_t rss_kib;
  size_t heap_used_kib;  // malloc'd and not freed (arena + mmapped chunks)
  size_t heap_free_kib;  // freed but kept by the allocator in its arenas
};

Sample take_sample(double seconds, const Counts& n, bool trim) {
  // --trim: give the allocator's free pages back first, so RSS shows what is in use.
  if (trim) malloc_trim(0);
  struct mallinfo2 mi = mallinfo2();
  return {seconds,           n.cycles, n.round_trips, rss_kib(), (mi.uordblks + mi.hblkhd) / 1024,
          mi.fordblks / 1024};
}

// Least-squares slope of y against x; 0 with fewer than two distinct x.
template <class X, class Y>
double slope(const std::vector<Sample>& s, size_t from, X x, Y y) {
  double n = 0, sx = 0, sy = 0;
  for (size_t i = from; i < s.size(); ++i, ++n) {
    sx += x(s[i]);
    sy += y(s[i]);
  }
  if (n < 2) return 0;
  double mx = sx / n, my = sy / n, sxx = 0, sxy = 0;
  for (size_t i = from; i < s.size(); ++i) {
    sxx += (x(s[i]) - mx) * (x(s[i]) - mx);
    sxy += (x(s[i]) - mx) * (y(s[i]) - my);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

// The RSS after `from` with its largest single rise between two samples taken out: one
// pool or arena extension (UCX grows a memory pool by ~850 KiB at once; glibc's heap by
// 128 KiB and more) is a step, not a slope. A leak rises at every sample and keeps its
// slope without its largest rise; a step leaves a flat line. Needs 5 samples or more, else
// the RSS as it is.
std::vector<double> rss_without_largest_rise(const std::vector<Sample>& s, size_t from) {
  std::vector<double> out;
  for (size_t i = from; i < s.size(); ++i) out.push_back(double(s[i].rss_kib));
  if (out.size() < 5) return out;
  size_t at = 1;
  for (size_t i = 1; i < out.size(); ++i)
    if (out[i] - out[i - 1] > out[at] - out[at - 1]) at = i;
  double rise = std::max(0.0, out[at] - out[at - 1]);
  for (size_t i = at; i < out.size(); ++i) out[i] -= rise;
  return out;
}

struct Limits {
  double seconds, sample_s, warmup_s, max_slope;
  size_t min_fit_cycles, max_growth_kib;
  bool trim;
  double max_seconds;  // go on past `seconds` until the fit spans min_fit_cycles, up to this
};

// Connect/close cycles between the first sample at or after the warm-up and the last.
size_t fit_window(const std::vector<Sample>& s, double warmup_s) {
  size_t b = 0;
  while (b < s.size() && s[b].seconds < warmup_s) ++b;
  return b < s.size() ? s.back().cycles - s[b].cycles : 0;
}

// One backend: returns true when memory stayed flat.
bool soak(const std::string& scheme, const Limits& lim, std::ofstream* csv) {
  EventLoop loop;
  auto backend = registry().create(scheme, loop);
  auto listener = backend->make_listener(backend->default_listen_address("127.0.0.1"));
  EchoLog echo;  // a protocol error on the echo side fails the soak
  loop.run(listener->start(echo_server(&echo)));
  std::string addr = listener->contact_address();
  auto connector = backend->make_connector();
  Counts n;
  std::vector<Sample> samples;
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  loop.run([&]() -> Task<void> {
    auto comm = co_await connector->connect(addr, 10s);
    double next_sample = 0;
    size_t id = 0;
    // A slow backend (ucx churns ~10x fewer cycles a second than tcp, fewer still on a
    // loaded machine) runs on until its slope can be judged, bounded by --max-seconds.
    while (elapsed() < lim.seconds || (elapsed() < lim.max_seconds &&
                                       fit_window(samples, lim.warmup_s) < lim.min_fit_cycles)) {
      // A burst of ping-pong over the long-lived comm, sizes 1 B .. 64 KiB.
      for (size_t k = 0; k < 200; ++k, ++id) {
        Shape shape{size_t{1} << (id % 17)};
        PatternMessage out(id, shape);
        Message in;
        co_await comm->write(out.msg);
        co_await comm->read(in);
        n.wrong += wrong_bytes(in, id, shape);
        ++n.round_trips;
      }
      // Churn: short-lived connections, as Dask's dynamic worker-to-worker ones.
      for (size_t k = 0; k < 20; ++k) {
        auto c = co_await connector->connect(addr, 10s);
        PatternMessage out(k, {32});
        Message in;
        co_await c->write(out.msg);
        co_await c->read(in);
        n.wrong += wrong_bytes(in, k, {32});
        co_await c->close();
        ++n.cycles;
      }
      if (elapsed() >= next_sample) {
        const Sample& s = samples.emplace_back(take_sample(elapsed(), n, lim.trim));
        std::printf("%8s %8.1f %10zu %12zu %10zu %10zu %10zu\n", scheme.c_str(), s.seconds,
                    s.rss_kib, s.round_trips, s.cycles, s.heap_used_kib, s.heap_free_kib);
        std::fflush(stdout);
        if (csv)
          *csv << scheme << ',' << s.seconds << ',' << s.cycles << ',' << s.round_trips << ','
               << s.rss_kib << ',' << s.heap_used_kib << ',' << s.heap_free_kib
               << std::endl;  // kept if killed
        next_sample += lim.sample_s;
      }
    }
    co_await comm->close();
  }());
  listener->stop();
  bool settled = loop.settle_detached(5s);  // handlers end before loop and backend go
  if (csv) csv->flush();
  // Warm-up (caches, pools, arenas settle): the samples before --warmup are left out.
  size_t base_i = 0;
  while (base_i + 1 < samples.size() && samples[base_i].seconds < lim.warmup_s) ++base_i;
  size_t base = samples[base_i].rss_kib, last = samples.back().rss_kib, peak = base;
  for (size_t i = base_i; i < samples.size(); ++i) peak = std::max(peak, samples[i].rss_kib);
  long growth = static_cast<long>(last) - static_cast<long>(base);
  auto cycles = [](const Sample& s) { return double(s.cycles); };
  double rss_slope =
      1000 * slope(samples, base_i, cycles, [](const Sample& s) { return double(s.rss_kib); });
  double heap_slope = 1000 * slope(samples, base_i, cycles,
                                   [](const Sample& s) { return double(s.heap_used_kib); });
  std::vector<double> stepless = rss_without_largest_rise(samples, base_i);
  double step_slope = 1000 * slope(samples, base_i, cycles, [&](const Sample& s) {
                        return stepless[size_t(&s - &samples[base_i])];
                      });
  size_t fitted = samples.size() - base_i;
  // RSS moves in pages and in heap extensions of 128 KiB and more: over a few hundred
  // cycles one such step reads as a slope of several hundred KiB per 1,000, so a window
  // of fewer cycles than --min-fit-cycles is reported but not judged.
  size_t fit_cycles = samples.back().cycles - samples[base_i].cycles;
  bool judged = fit_cycles >= lim.min_fit_cycles;
  // One step (bounded by --max-growth-kib) is allowed: the slope judged is the RSS's
  // without its largest rise. A ucx run of 520 cycles failed on a single 848 KiB pool
  // extension (1,435 KiB per 1,000 cycles with it, 21 without; heap in use 36). A leak spread
  // over the samples keeps most of its slope: 1.5 KiB a cycle over those samples reads 1,239.
  bool slope_ok = !judged || std::min(rss_slope, step_slope) <= lim.max_slope;
  bool ok = growth <= static_cast<long>(lim.max_growth_kib) && slope_ok && fitted >= 3 &&
            n.wrong == 0 && settled && echo.protocol_errors == 0;
  if (echo.protocol_errors)
    std::printf("# %s: echo side saw %zu protocol error(s), last: %s\n", scheme.c_str(),
                echo.protocol_errors, echo.last_why.c_str());
  if (!judged)
    std::printf(
        "# %s: slope not judged: %zu cycles after warm-up, fewer than "
        "--min-fit-cycles %zu\n",
        scheme.c_str(), fit_cycles, lim.min_fit_cycles);
  if (fitted < 3)
    std::printf(
        "# %s: only %zu sample(s) after the %.0f s warm-up: raise --seconds or lower "
        "--sample\n",
        scheme.c_str(), fitted, lim.warmup_s);
  std::printf(
      "# %s: %zu round trips, %zu connect/close cycles, wrong bytes %zu; RSS %zu KiB "
      "at %.0f s -> %zu KiB at end (peak %zu), growth %ld KiB (limit %zu); slope over %zu "
      "samples, %zu cycles from %.0f s: RSS %.1f KiB per 1,000 cycles (%.1f without its "
      "largest rise; limit %.1f), heap in use %.1f: %s\n",
      scheme.c_str(), n.round_trips, n.cycles, n.wrong, base, samples[base_i].seconds, last, peak,
      growth, lim.max_growth_kib, fitted, fit_cycles, samples[base_i].seconds, rss_slope,
      step_slope, lim.max_slope, heap_slope,
      ok                                    ? "FLAT"
      : !settled                            ? "HANDLERS LEFT"
      : fitted < 3                          ? "TOO FEW SAMPLES"
      : n.wrong > 0 || echo.protocol_errors ? "WRONG BYTES"
                                            : "GREW");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Soak test: ping-pong + connect/close churn while sampling RSS", "soak"};
  std::vector<std::string> backends;
  Limits lim{20, 2, -1, 64, 1000, 4096, false, -1};
  std::string csv_path;
  app.add_option("--backend", backends, "Backends to soak, one after the other (default: all)");
  app.add_option("--seconds", lim.seconds, "Seconds per backend")->capture_default_str();
  app.add_option("--sample", lim.sample_s, "Seconds between RSS samples")->capture_default_str();
  app.add_option("--warmup", lim.warmup_s,
                 "Seconds left out of the fit and the growth check (default: a fifth of "
                 "--seconds, so a 10-minute run fits its last 8 minutes)");
  app.add_option("--max-slope-kib-per-kcycle", lim.max_slope,
                 "Allowed least-squares slope of RSS after warm-up, KiB per 1,000 "
                 "connect/close cycles")
      ->capture_default_str();
  app.add_option("--min-fit-cycles", lim.min_fit_cycles,
                 "Judge the slope only when the window after warm-up spans this many cycles")
      ->capture_default_str();
  app.add_option("--max-growth-kib", lim.max_growth_kib, "Allowed RSS growth after warm-up")
      ->capture_default_str();
  app.add_option("--max-seconds", lim.max_seconds,
                 "Go on past --seconds until the fit spans --min-fit-cycles, for at most this "
                 "many seconds per backend (default: --seconds, no extension)");
  app.add_option("--csv", csv_path,
                 "Write every sample here: backend, seconds, cycles, round_trips, rss_kib, "
                 "heap_used_kib, heap_free_kib");
  app.add_flag("--trim", lim.trim,
               "malloc_trim(0) before each sample (RSS then excludes free heap pages)");
  try {
    app.parse(argc, argv);
    if (lim.seconds <= 0 || lim.sample_s <= 0)
      throw CLI::ValidationError("--seconds and --sample must be > 0");
    if (lim.warmup_s < 0) lim.warmup_s = lim.seconds / 5;
    if (lim.warmup_s >= lim.seconds)
      throw CLI::ValidationError("--warmup must be less than --seconds");
    if (lim.max_seconds < 0) lim.max_seconds = lim.seconds;
    if (lim.max_seconds < lim.seconds)
      throw CLI::ValidationError("--max-seconds must be at least --seconds");
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    if (!csv) {
      std::fprintf(stderr, "soak: error: cannot write --csv %s\n", csv_path.c_str());
      return 2;
    }
    csv << "backend,seconds,cycles,round_trips,rss_kib,heap_used_kib,heap_free_kib\n";
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  if (backends.empty()) backends = registry().schemes();
  std::printf("# backend elapsed_s    rss_kib  round_trips     cycles  heap_used  heap_free\n");
  bool ok = true;
  for (const auto& b : backends) {
    try {
      ok = soak(b, lim, csv.is_open() ? &csv : nullptr) && ok;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soak: error: %s: %s\n", b.c_str(), e.what());
      ok = false;
    }
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
