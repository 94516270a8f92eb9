// wake_probe: what one hop through any user-space forwarder costs at least on this machine.
// Two processes pass one byte back and forth over pipes, each blocked in read() until the
// other writes: a one-way trip is one wake-up of a sleeping process plus a write and a
// read, the least linkemu does per frame. Measured with both processes on one CPU and on
// two, since where the woken process runs decides the cost (a sleeping virtual CPU must
// first be woken by its hypervisor). Prints JSON: {"same_cpu": {...}, "other_cpu": {...}},
// each the one-way p10/p50/p90 in µs over --trips round trips.
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    std::perror("wake_probe: sched_setaffinity");
    std::exit(1);
  }
}

// One-way µs per trip (round trip / 2), sorted; the child echoes on the other pipe.
std::vector<double> trips(int parent_cpu, int child_cpu, int n) {
  int to_child[2], to_parent[2];
  if (pipe(to_child) != 0 || pipe(to_parent) != 0) {
    std::perror("wake_probe: pipe");
    std::exit(1);
  }
  char byte = 0;
  pid_t child = fork();
  if (child == 0) {
    pin(child_cpu);
    for (int i = 0; i < n; ++i)
      if (read(to_child[0], &byte, 1) != 1 || write(to_parent[1], &byte, 1) != 1) _exit(1);
    _exit(0);
  }
  pin(parent_cpu);
  std::vector<double> us(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (write(to_child[1], &byte, 1) != 1 || read(to_parent[0], &byte, 1) != 1) std::exit(1);
    us[static_cast<size_t>(i)] =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        2;
  }
  waitpid(child, nullptr, 0);
  for (int fd : {to_child[0], to_child[1], to_parent[0], to_parent[1]}) close(fd);
  std::sort(us.begin(), us.end());
  return us;
}

std::string summary(const std::vector<double>& us) {
  auto at = [&](double q) {
    return us[static_cast<size_t>(q * static_cast<double>(us.size() - 1))];
  };
  char buf[160];
  std::snprintf(buf, sizeof buf, "{\"p10_us\": %.2f, \"p50_us\": %.2f, \"p90_us\": %.2f}", at(0.1),
                at(0.5), at(0.9));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 20000;
  if (argc == 3 && std::string(argv[1]) == "--trips") n = std::atoi(argv[2]);
  if (n < 100 || (argc != 1 && argc != 3)) {
    std::fprintf(stderr, "usage: wake_probe [--trips N]  (N >= 100; default 20000)\n");
    return 2;
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  std::string same = summary(trips(0, 0, n));
  std::string other = cpus > 1 ? summary(trips(0, 1, n)) : "null";
  std::printf("{\"trips\": %d, \"same_cpu\": %s, \"other_cpu\": %s}\n", n, same.c_str(),
              other.c_str());
  return 0;
}
