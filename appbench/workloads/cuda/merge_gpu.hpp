// merge on the GPU: the two device steps of a shuffle join, callable from plain C++.
// Tables are columns of int64 keys and int64 payloads in device memory.
//   hash_partition: reorders a chunk so partition p's rows are contiguous (the pieces a
//                   worker sends to each peer in the exchange);
//   DeviceJoin:     the local inner join of what a worker received (build side sorted
//                   once, probe rows looked up by binary search, output materialized).
// Kernels and Thrust calls live in merge_gpu.cu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/mix64.hpp"

namespace commbench::app::gpu {

// The partition of a key, the same on host and device (murmur3's 64-bit finalizer, so
// consecutive keys spread evenly).
COMMBENCH_HOST_DEVICE inline uint32_t partition_of(int64_t key, uint32_t parts) {
  return static_cast<uint32_t>(mix64(static_cast<uint64_t>(key)) % parts);
}

// Writes the `rows` rows into out_keys/out_payload (device, `rows` each) grouped by
// partition, keeping their order within a partition; returns parts + 1 offsets (host).
std::vector<size_t> hash_partition(const int64_t* keys, const int64_t* payload, size_t rows,
                                   uint32_t parts, int64_t* out_keys, int64_t* out_payload);

class DeviceJoin {
 public:
  // Copies and sorts the build side (device pointers; keys may repeat).
  DeviceJoin(const int64_t* build_keys, const int64_t* build_payload, size_t rows);
  ~DeviceJoin();
  DeviceJoin(const DeviceJoin&) = delete;
  DeviceJoin& operator=(const DeviceJoin&) = delete;

  // Rows of build ⋈ probe on key.
  size_t count(const int64_t* probe_keys, size_t rows);
  // Writes the joined rows (key, build payload, probe payload) into device arrays with
  // room for count() rows; returns how many were written. Probe rows keep their order.
  size_t materialize(const int64_t* probe_keys, const int64_t* probe_payload, size_t rows,
                     int64_t* out_keys, int64_t* out_build_payload, int64_t* out_probe_payload);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace commbench::app::gpu
