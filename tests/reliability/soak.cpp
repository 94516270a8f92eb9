// soak: ping-pong plus connect/close churn on each backend for a while, sampling the
// resident set size (VmRSS of /proc/self/status) every few seconds. Prints a table and
// fails when memory grew by more than --max-growth between the first sample after
// warm-up and the last. Runs listener and connector in this process (mpirun -np 1 for
// the mpi backend). The 10-minute profile: tests/reliability/soak.sh.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

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

// One backend: returns true when memory stayed flat.
bool soak(const std::string& scheme, double seconds, double sample_s, size_t max_growth_kib) {
  EventLoop loop;
  auto backend = registry().create(scheme, loop);
  auto listener = backend->make_listener(backend->default_listen_address("127.0.0.1"));
  EchoLog echo;  // a protocol error on the echo side fails the soak
  loop.run(listener->start(echo_server(&echo)));
  std::string addr = listener->contact_address();
  auto connector = backend->make_connector();
  Counts n;
  std::vector<std::pair<double, size_t>> samples;  // (seconds, RSS KiB)
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  loop.run([&]() -> Task<void> {
    auto comm = co_await connector->connect(addr, 10s);
    double next_sample = 0;
    size_t id = 0;
    while (elapsed() < seconds) {
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
        samples.emplace_back(elapsed(), rss_kib());
        std::printf("%8s %8.1f %10zu %12zu %10zu\n", scheme.c_str(), samples.back().first,
                    samples.back().second, n.round_trips, n.cycles);
        std::fflush(stdout);
        next_sample += sample_s;
      }
    }
    co_await comm->close();
  }());
  listener->stop();
  bool settled = loop.settle_detached(5s);  // handlers end before loop and backend go
  // The baseline is the first sample after a tenth of the run (caches, pools, arenas
  // settle); growth after that is what a long run would accumulate.
  size_t base_i = 0;
  while (base_i + 1 < samples.size() && samples[base_i].first < seconds / 10) ++base_i;
  size_t base = samples[base_i].second, last = samples.back().second, peak = base;
  for (size_t i = base_i; i < samples.size(); ++i) peak = std::max(peak, samples[i].second);
  long growth = static_cast<long>(last) - static_cast<long>(base);
  bool ok = growth <= static_cast<long>(max_growth_kib) && n.wrong == 0 && settled &&
            echo.protocol_errors == 0;
  if (echo.protocol_errors)
    std::printf("# %s: echo side saw %zu protocol error(s), last: %s\n", scheme.c_str(),
                echo.protocol_errors, echo.last_why.c_str());
  std::printf(
      "# %s: %zu round trips, %zu connect/close cycles, wrong bytes %zu; RSS %zu KiB "
      "at %.0f s -> %zu KiB at end (peak %zu), growth %ld KiB (limit %zu): %s\n",
      scheme.c_str(), n.round_trips, n.cycles, n.wrong, base, samples[base_i].first, last, peak,
      growth, max_growth_kib,
      ok        ? "FLAT"
      : settled ? "GREW"
                : "HANDLERS LEFT");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Soak test: ping-pong + connect/close churn while sampling RSS", "soak"};
  std::vector<std::string> backends;
  double seconds = 20, sample = 2;
  size_t max_growth_kib = 4096;
  app.add_option("--backend", backends, "Backends to soak, one after the other (default: all)");
  app.add_option("--seconds", seconds, "Seconds per backend")->capture_default_str();
  app.add_option("--sample", sample, "Seconds between RSS samples")->capture_default_str();
  app.add_option("--max-growth-kib", max_growth_kib, "Allowed RSS growth after warm-up")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
    if (seconds <= 0 || sample <= 0)
      throw CLI::ValidationError("--seconds and --sample must be > 0");
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  if (backends.empty()) backends = registry().schemes();
  std::printf("# backend  elapsed_s  rss_kib  round_trips  cycles\n");
  bool ok = true;
  for (const auto& b : backends) {
    try {
      ok = soak(b, seconds, sample, max_growth_kib) && ok;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soak: error: %s: %s\n", b.c_str(), e.what());
      ok = false;
    }
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
