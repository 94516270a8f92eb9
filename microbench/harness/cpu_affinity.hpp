// Which CPUs this process may run on, and pinning a thread to one: the machine probes
// (latency_probe, memcpy_probe) measure the hardware, so each thread stays on one core.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <cstddef>
#include <vector>

namespace commbench {

// The first `n` CPUs of this process's affinity mask (fewer when it has fewer).
inline std::vector<int> allowed_cpus(size_t n) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE && out.size() < n; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

inline bool pin(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof set, &set) == 0;
}

}  // namespace commbench
