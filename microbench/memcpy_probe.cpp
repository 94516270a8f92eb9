// memcpy_probe: the machine's floor for moving a large message, one core's memcpy bandwidth.
//
// The report's "distance to the machine" (issue 29) sets each backend's 16 MiB bandwidth
// beside what one core can copy at all: every path measured here, whatever its transport,
// ends in at least one copy by one core (CMA's process_vm_readv, a shared-memory FIFO's
// copy-in, the kernel's socket copies), so a single-threaded memcpy of the same size is
// the ceiling no backend can pass on this machine. Like latency_probe it uses no MPI and no
// comm library, so it measures the machine, not us, and scripts run it beside every run.
//
// Method: one thread pinned to the first CPU this process may use copies --bytes from one
// buffer to another (both touched first, so page faults are not timed). Each repetition
// times one copy; the figure is bytes / time in MB/s (10^6, the suite's unit), the median
// over repetitions, with the fastest beside it. A deadline bounds everything.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/cpu_affinity.hpp"
#include "harness/stats.hpp"

namespace {

using commbench::allowed_cpus;
using commbench::pin;
using commbench::summarize;
using commbench::Summary;

using Clock = std::chrono::steady_clock;

// Keeps the compiler from proving the copy's destination unused and dropping the copy.
void escape(void* p) {
  asm volatile("" : : "g"(p) : "memory");
}

}  // namespace

int main(int argc, char** argv) {
  size_t bytes = size_t{16} << 20, reps = 40, warmup = 2;
  double deadline_ms = 2000;
  CLI::App app{
      "One core's memcpy bandwidth: the floor under every backend's large-message bandwidth "
      "(no MPI, no comm library). Prints JSON on stdout:\n"
      "  copy_MBps_p50  median over repetitions of bytes / time of one copy, MB/s (10^6)\n"
      "  copy_MBps_max  the fastest repetition\n"
      "  bytes          the size of one copy\n"
      "  cpu, pinned    the CPU the copying thread ran on\n"
      "  complete       false when --deadline-ms cut the measurement short",
      "memcpy_probe"};
  app.add_option("--bytes", bytes, "Bytes per copy (the report compares it at 16 MiB)")
      ->check(CLI::Range(size_t{4096}, size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--reps", reps, "Timed copies")
      ->check(CLI::Range(size_t{1}, size_t{10000}))
      ->capture_default_str();
  app.add_option("--warmup", warmup, "Untimed copies first")
      ->check(CLI::Range(size_t{0}, size_t{1000}))
      ->capture_default_str();
  app.add_option("--deadline-ms", deadline_ms, "Stop measuring after this long, whatever is done")
      ->check(CLI::Range(1.0, 60000.0))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::vector<int> cpus = allowed_cpus(1);
  const int cpu = cpus.empty() ? -1 : cpus[0];
  const bool pinned = cpu >= 0 && pin(pthread_self(), cpu);
  // new char[] leaves the pages untouched; memset faults them in before anything is timed.
  std::unique_ptr<char[]> src(new (std::nothrow) char[bytes]);
  std::unique_ptr<char[]> dst(new (std::nothrow) char[bytes]);
  if (!src || !dst) {
    std::fprintf(stderr, "memcpy_probe: error: cannot allocate 2 x %zu bytes\n", bytes);
    return 1;
  }
  std::memset(src.get(), 0x5a, bytes);
  std::memset(dst.get(), 0, bytes);

  auto deadline =
      Clock::now() + std::chrono::microseconds(static_cast<long long>(deadline_ms * 1e3));
  bool complete = true;
  for (size_t i = 0; i < warmup && complete; ++i) {
    std::memcpy(dst.get(), src.get(), bytes);
    escape(dst.get());
    complete = Clock::now() <= deadline;
  }
  std::vector<double> mbps;
  for (size_t i = 0; i < reps && complete; ++i) {
    auto t0 = Clock::now();
    std::memcpy(dst.get(), src.get(), bytes);
    escape(dst.get());
    auto t1 = Clock::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    if (s > 0) mbps.push_back(static_cast<double>(bytes) / s / 1e6);
    complete = t1 <= deadline;
  }
  if (mbps.empty()) {
    std::fprintf(stderr, "memcpy_probe: error: no copy finished within --deadline-ms %g\n",
                 deadline_ms);
    return 1;
  }
  // A copy that moved less than asked would make the figure meaningless: compare it all.
  if (std::memcmp(dst.get(), src.get(), bytes) != 0) {
    std::fprintf(stderr, "memcpy_probe: error: the destination does not hold the source\n");
    return 1;
  }
  nlohmann::ordered_json out;
  out["probe"] = "memcpy";
  const Summary sum = summarize(mbps);
  out["copy_MBps_p50"] = std::round(sum.p50);
  out["copy_MBps_max"] = std::round(sum.max);
  out["bytes"] = bytes;
  out["cpu"] = cpu;
  out["pinned"] = pinned;
  out["reps"] = mbps.size();
  out["warmup"] = warmup;
  out["complete"] = complete;
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
