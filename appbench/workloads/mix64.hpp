// murmur3's 64-bit finalizer: a cheap, well-spread hash behind every workload's data
// generator, checksum weights and hash partitioning. One definition for host and device, so
// a GPU partition can never disagree with the host's.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define COMMBENCH_HOST_DEVICE __host__ __device__
#else
#define COMMBENCH_HOST_DEVICE
#endif

namespace commbench::app {

COMMBENCH_HOST_DEVICE inline uint64_t mix64(uint64_t z) {
  z ^= z >> 33;
  z *= 0xff51afd7ed558ccdull;
  z ^= z >> 33;
  z *= 0xc4ceb9fe1a85ec53ull;
  z ^= z >> 33;
  return z;
}

}  // namespace commbench::app
