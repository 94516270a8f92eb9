// wake_probe: the least one hop through a user-space forwarder costs on this machine.
//
// scripts/vcluster's link emulator (scripts/linkemu) sleeps in epoll until a frame comes,
// then reads it and writes it on: every frame pays at least one wake-up of a sleeping
// process plus a read and a write. `scripts/vcluster calibrate` records this probe beside
// the emulator's measured cost, so a reader sees which part of that cost is the machine's.
//
// Method: two processes pass one byte back and forth over two pipes, each blocked in
// read() until the other writes; a one-way trip is a round trip / 2. Measured with both
// processes pinned to one CPU and then to two CPUs this process may use: where the woken
// process runs decides the cost (on a VM a sleeping virtual CPU must first be woken by its
// hypervisor). Like the other probes it uses no MPI and no comm library.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "harness/cpu_affinity.hpp"
#include "harness/stats.hpp"

namespace {

using commbench::allowed_cpus;
using commbench::pin;
using commbench::summarize;
using commbench::Summary;

// One-way µs of `trips` round trips, the parent on `parent_cpu` and its echoing child on
// `child_cpu`; nothing if a pipe, the fork or a pin failed.
std::optional<std::vector<double>> trips_us(int parent_cpu, int child_cpu, size_t trips) {
  int to_child[2], to_parent[2];
  if (pipe(to_child) != 0) return std::nullopt;
  if (pipe(to_parent) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    return std::nullopt;
  }
  char byte = 0;
  pid_t child = fork();
  if (child == 0) {
    if (!pin(pthread_self(), child_cpu)) _exit(1);
    for (size_t i = 0; i < trips; ++i)
      if (read(to_child[0], &byte, 1) != 1 || write(to_parent[1], &byte, 1) != 1) _exit(1);
    _exit(0);
  }
  std::vector<double> us;
  if (child > 0 && pin(pthread_self(), parent_cpu)) {
    us.reserve(trips);
    for (size_t i = 0; i < trips; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      if (write(to_child[1], &byte, 1) != 1 || read(to_parent[0], &byte, 1) != 1) break;
      us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
          2);
    }
  }
  for (int fd : {to_child[0], to_child[1], to_parent[0], to_parent[1]}) close(fd);
  int status = 0;
  if (child > 0) waitpid(child, &status, 0);
  if (child <= 0 || us.size() != trips || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::nullopt;
  return us;
}

nlohmann::ordered_json one_way(std::vector<double>& us) {
  const Summary s = summarize(us);
  auto two = [](double v) { return std::round(v * 100) / 100; };
  return {{"p50_us", two(s.p50)}, {"p90_us", two(s.p90)}, {"min_us", two(s.min)}};
}

}  // namespace

int main(int argc, char** argv) {
  size_t trips = 20000;
  CLI::App app{
      "One wake-up of a process blocked in read(), one way: the floor under every user-space "
      "hop, such as the link emulator's (no MPI, no comm library). Prints JSON on stdout:\n"
      "  same_cpu   {p50_us, p90_us, min_us} with both processes on one CPU\n"
      "  other_cpu  the same on two CPUs (null when this process may use only one)\n"
      "  cpus       the CPUs used; trips  round trips per placement",
      "wake_probe"};
  app.add_option("--trips", trips, "Round trips per placement")
      ->check(CLI::Range(size_t{100}, size_t{1000000}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::vector<int> cpus = allowed_cpus(2);
  if (cpus.empty()) {
    std::fprintf(stderr, "wake_probe: error: no CPU in this process's affinity mask\n");
    return 1;
  }
  auto same = trips_us(cpus[0], cpus[0], trips);
  if (!same) {
    std::fprintf(stderr, "wake_probe: error: the pipe ping-pong on CPU %d failed\n", cpus[0]);
    return 1;
  }
  nlohmann::ordered_json out;
  out["probe"] = "wake";
  out["same_cpu"] = one_way(*same);
  out["other_cpu"] = nullptr;
  if (cpus.size() > 1) {
    auto other = trips_us(cpus[0], cpus[1], trips);
    if (!other) {
      std::fprintf(stderr, "wake_probe: error: the pipe ping-pong on CPUs %d and %d failed\n",
                   cpus[0], cpus[1]);
      return 1;
    }
    out["other_cpu"] = one_way(*other);
  }
  out["cpus"] = cpus;
  out["trips"] = trips;
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
