// What the GPU layer needs from a device, as an interface: device and pinned host
// allocators, asynchronous copies on a few in-order lanes (CUDA streams) with a
// non-blocking completion test, and a blocking copy. The CUDA module implements it with
// the CUDA runtime; HostDeviceOps implements it with host memory and deferred memcpy so
// the staging pipeline is tested on machines without a GPU.
#pragma once

#include <cstddef>
#include <string>

#include "comm/buffer.hpp"

namespace commbench::gpu {

class DeviceOps {
 public:
  // Lanes 0-1 carry a comm's send pipeline, 2-3 its receive pipeline, so a bidirectional
  // exchange never waits on the other direction's copies.
  static constexpr int kLanes = 4;

  virtual ~DeviceOps() = default;
  // E.g. "cuda:0 NVIDIA H100 80GB HBM3" or "host-simulated".
  virtual std::string name() const = 0;
  virtual MemoryAllocator& device_memory() = 0;
  // Page-locked host memory: copies from and to it run asynchronously.
  virtual MemoryAllocator& pinned_memory() = 0;

  // Starts copying `n` bytes on `lane`; either side may be host or device memory.
  // Copies on one lane complete in the order they were issued. Throws on failure.
  virtual void copy_async(void* dst, const void* src, size_t n, int lane) = 0;
  // True once every copy issued on `lane` has finished; never blocks.
  virtual bool lane_idle(int lane) = 0;
  // Copies and waits (validation and set-up, never in a timed pipeline).
  virtual void copy(void* dst, const void* src, size_t n) = 0;
};

}  // namespace commbench::gpu
