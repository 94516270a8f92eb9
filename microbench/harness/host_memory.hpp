// This host's physical memory, for refusing sizes that cannot fit before anything is
// allocated (the microbenchmarks' --max-size, the application benchmarks' data sets).
#pragma once

#include <unistd.h>

#include <cstdint>

namespace commbench {

// Bytes of physical memory, or 0 when the system does not say.
inline uint64_t physical_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

}  // namespace commbench
