// What the GPU layer needs from a device, as an interface: device and pinned host
// allocators, asynchronous copies on a few in-order lanes (CUDA streams) with a
// non-blocking completion test, and a blocking copy. The CUDA module implements it with
// the CUDA runtime; HostDeviceOps implements it with host memory and deferred memcpy so
// the staging pipeline is tested on machines without a GPU.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include "comm/buffer.hpp"
#include "gpu/allocation_table.hpp"

namespace commbench::gpu {

// An exported device allocation as opaque bytes (a cudaIpcMemHandle_t is 64): what a
// process sends a peer on the same node so that the peer can map the allocation.
struct IpcHandle {
  std::array<std::byte, 64> bytes{};
};

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

  // CUDA IPC, whole allocations at a time (gpu/ipc_handle_cache.hpp caches all three).
  // The defaults describe a device without IPC: nothing is found, the rest throws.
  // The allocation of device_memory() holding `p`, or nullopt.
  virtual std::optional<DeviceAllocation> find_allocation(const void*) { return std::nullopt; }
  // Exports the allocation starting at `base` (cudaIpcGetMemHandle). Throws.
  virtual IpcHandle ipc_export(void* /*base*/) { throw no_ipc(); }
  // Maps a peer's exported allocation into this process (cudaIpcOpenMemHandle) and
  // returns its base here. Throws std::runtime_error, e.g. for a freed allocation.
  virtual void* ipc_open(const IpcHandle&) { throw no_ipc(); }
  // Unmaps what ipc_open returned (cudaIpcCloseMemHandle).
  virtual void ipc_close(void* /*mapped*/) noexcept {}

 private:
  std::runtime_error no_ipc() const {
    return std::runtime_error("CUDA IPC is not supported by device " + name());
  }
};

}  // namespace commbench::gpu
