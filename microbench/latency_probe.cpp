// latency_probe: which of the VM's two latency modes the machine is in right now.
//
// This VM class flips without warning between two placements of its vCPUs: a raw
// two-thread shared-memory ping-pong then measures ~0.054 us or ~0.25 us one-way, and
// every MPI/UCX small-message latency moves 3-4x with it (BRIEF section 2). Scripts run
// this probe beside every measurement so a result says which mode it was taken in. It
// uses threads only (no MPI, no comm library) so that it measures the machine, not us.
//
// Method: two threads pinned to the first two CPUs this process may use pass a counter
// back and forth through one cache-line-aligned atomic. Round trips are timed in batches
// (one clock read costs a fair part of a fast round trip); the one-way figure of a batch
// is its time / (2 x batch). Per repetition the median batch, over repetitions the
// median of those. A deadline bounds everything: the probe never hangs.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "harness/cpu_affinity.hpp"
#include "harness/stats.hpp"

namespace {

using commbench::allowed_cpus;
using commbench::pin;
using commbench::summarize;

using Clock = std::chrono::steady_clock;

// fast < kThresholdNs <= slow: the two modes measure ~54 ns and ~250 ns one-way.
constexpr int kThresholdNs = 120;
// Round trips per timed sample: enough that the two clock reads (~20 ns each) vanish.
constexpr size_t kBatch = 100;
// How often a spinning thread looks at the clock or the stop flag (a power of two).
constexpr uint32_t kCheckEvery = 1u << 12;

// Each on its own cache line: the ball moves between the cores on every hop, the stop
// flag stays shared and read-only until the end, and the two must not share a line.
struct alignas(64) Line {
  std::atomic<uint64_t> value{0};
};

struct Shared {
  Line ball;  // odd: the ponger's turn to answer; even: the pinger's
  Line stop;
  Clock::time_point deadline;
  bool yield = false;  // one CPU: a spinning thread must let its peer run
};

void ponger(Shared& s) {
  uint64_t expect = 1;
  uint32_t spins = 0;
  for (;;) {
    if (s.ball.value.load(std::memory_order_acquire) == expect) {
      s.ball.value.store(expect + 1, std::memory_order_release);
      expect += 2;
      continue;
    }
    if (s.yield) sched_yield();
    if ((++spins & (kCheckEvery - 1)) == 0 && s.stop.value.load(std::memory_order_relaxed)) return;
  }
}

// `n` round trips from the pinger's side; false when the deadline passed first.
bool round_trips(Shared& s, uint64_t& seq, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    s.ball.value.store(++seq, std::memory_order_release);
    ++seq;
    uint32_t spins = 0;
    while (s.ball.value.load(std::memory_order_acquire) != seq) {
      if (s.yield) sched_yield();
      if ((++spins & (kCheckEvery - 1)) == 0 && Clock::now() > s.deadline) return false;
    }
  }
  return true;
}

double tenth(double v) {
  return std::round(v * 10) / 10;
}

}  // namespace

int main(int argc, char** argv) {
  size_t trips = 20000, warmup = 2000, reps = 5;
  double deadline_ms = 800;
  CLI::App app{
      "Which latency mode this VM is in: two threads pinned to two CPUs ping-pong on one "
      "cache-line-aligned atomic (no MPI, no comm library). Prints JSON on stdout:\n"
      "  one_way_ns_p50  median over repetitions of each repetition's median one-way ns\n"
      "  one_way_ns_min  the fastest batch seen\n"
      "  mode            fast (< threshold_ns) or slow; this VM class measures ~54 or ~250 ns\n"
      "  cpus, pinned    the CPUs used (with one CPU online the threads share it unpinned\n"
      "                  and a note says so: the figure then includes scheduler switches)\n"
      "  complete        false when --deadline-ms cut the measurement short",
      "latency_probe"};
  app.add_option("--round-trips", trips, "Timed round trips per repetition")
      ->check(CLI::Range(size_t{kBatch}, size_t{100'000'000}))
      ->capture_default_str();
  app.add_option("--warmup", warmup, "Untimed round trips first")->capture_default_str();
  app.add_option("--reps", reps, "Repetitions")
      ->check(CLI::Range(size_t{1}, size_t{1000}))
      ->capture_default_str();
  app.add_option("--deadline-ms", deadline_ms, "Stop measuring after this long, whatever is done")
      ->check(CLI::Range(1.0, 60000.0))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  long online = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus = allowed_cpus(2);
  Shared s;
  s.deadline = Clock::now() + std::chrono::microseconds(static_cast<long long>(deadline_ms * 1e3));
  s.yield = cpus.size() < 2;
  std::thread peer(ponger, std::ref(s));
  bool pinned = !s.yield && pin(pthread_self(), cpus[0]) && pin(peer.native_handle(), cpus[1]);

  uint64_t seq = 0;
  bool complete = round_trips(s, seq, warmup);
  std::vector<double> rep_medians;
  double fastest = 0;
  for (size_t r = 0; r < reps && complete; ++r) {
    std::vector<double> batches;
    for (size_t done = 0; done + kBatch <= trips; done += kBatch) {
      auto t0 = Clock::now();
      complete = round_trips(s, seq, kBatch);
      auto t1 = Clock::now();
      if (!complete) break;
      batches.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / (2.0 * kBatch));
      if (t1 > s.deadline) {
        complete = false;
        break;
      }
    }
    if (batches.empty()) break;
    double low = *std::min_element(batches.begin(), batches.end());
    fastest = rep_medians.empty() ? low : std::min(fastest, low);
    rep_medians.push_back(summarize(batches).p50);
  }
  s.stop.value.store(1, std::memory_order_relaxed);
  peer.join();

  if (rep_medians.empty()) {
    std::fprintf(stderr, "latency_probe: error: no round trip finished within --deadline-ms %g\n",
                 deadline_ms);
    return 1;
  }
  double p50 = summarize(rep_medians).p50;
  nlohmann::ordered_json out;
  out["probe"] = "thread-pingpong";
  out["one_way_ns_p50"] = tenth(p50);
  out["one_way_ns_min"] = tenth(fastest);
  out["mode"] = p50 < kThresholdNs ? "fast" : "slow";
  out["threshold_ns"] = kThresholdNs;
  out["cpus"] = cpus;
  out["pinned"] = pinned;
  out["cpus_online"] = online;
  out["round_trips"] = trips;
  out["warmup"] = warmup;
  out["reps"] = rep_medians.size();
  out["complete"] = complete;
  if (s.yield)
    out["note"] =
        "only one CPU online: both threads share it unpinned, so every round trip includes "
        "scheduler switches and the mode says little about the VM's placement";
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
