// What the GPU layer needs from a device, as an interface: device and pinned host
// allocators, asynchronous copies on a few in-order lanes (CUDA streams) with a
// non-blocking completion test, a copy with cudaMemcpy's semantics, and the two ways to
// order lane work after the caller's default-stream work. The CUDA module implements it
// with the CUDA runtime; HostDeviceOps implements it with host memory and deferred memcpy
// so the staging pipeline is tested on machines without a GPU.
//
// Ordering. The lanes are non-blocking streams: they do not wait for work on the legacy
// default stream (cudaStreamLegacy), which is where copy() and any kernel the caller
// launches without a stream run. A lane copy issued right after copy() may read a device
// buffer before copy()'s bytes have landed in it, and one issued while a default-stream
// kernel still reads a buffer may overwrite it under the kernel. Code that hands lane
// copies buffers the caller may have touched on the default stream calls
// order_after_default(lane) first (StagedComm does, once per write and per read: see
// backends/gpu/README.md for the contract a comm offers).
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
  // exchange never waits on the other direction's copies (unless reads complete in stream
  // order: a write's copies wait for the default stream, which then holds the reads').
  static constexpr int kLanes = 4;
  // One more lane that is the legacy default stream itself: its copies come after the
  // caller's earlier default-stream work and before its later work by construction (no
  // order_after_default or order_default_after needed, and none has any effect on it).
  // For copies whose completion the caller takes in stream order (StagedOptions).
  static constexpr int kDefaultLane = kLanes;

  virtual ~DeviceOps() = default;
  // E.g. "cuda:0 NVIDIA H100 80GB HBM3" or "host-simulated".
  virtual std::string name() const = 0;
  // How the host waits in blocking CUDA calls (cudaGetDeviceFlags): "auto", "spin",
  // "yield" or "blocking"; the simulated device says "simulated". For run metadata.
  virtual std::string schedule() const = 0;
  virtual MemoryAllocator& device_memory() = 0;
  // Page-locked host memory: copies from and to it run asynchronously.
  virtual MemoryAllocator& pinned_memory() = 0;

  // Starts copying `n` bytes on `lane` (0 .. kLanes-1, or kDefaultLane); either side may
  // be host or device memory. Copies on one lane complete in the order they were issued;
  // they are not ordered after anything else (order_after_default), except on
  // kDefaultLane, which runs in default-stream order. Throws on failure.
  virtual void copy_async(void* dst, const void* src, size_t n, int lane) = 0;
  // True once every copy issued on `lane` has finished; never blocks. Once it says so,
  // the copies' bytes are visible to the host and to work on any stream issued later.
  virtual bool lane_idle(int lane) = 0;
  // Waits until every lane is idle, spinning; for destructors of comms whose copies may
  // still be in flight into or out of their buffers. A device that fails is left alone.
  void drain_lanes() noexcept {
    try {
      for (int l = 0; l <= kDefaultLane; ++l)
        while (!lane_idle(l)) {
        }
    } catch (...) {
      // the device is gone; nothing left to wait for
    }
  }
  // A copy with cudaMemcpy's semantics (validation and set-up, never in a timed
  // pipeline): it runs on the legacy default stream, after the work issued there before
  // it, and it does NOT always wait for its bytes to land. Device to host (pageable or
  // pinned) and pinned host to device return complete; host to host is a plain copy.
  // Pageable host to device returns once the source has been read (the caller may reuse
  // it), but the bytes may land on the device later; device to device may return before
  // it ran at all. Both land in default-stream order: a later copy(), default-stream
  // work or synchronize_default() sees them, a lane copy only after order_after_default.
  virtual void copy(void* dst, const void* src, size_t n) = 0;
  // Makes every copy issued on `lane` from now on wait for all the work issued on the
  // legacy default stream before this call (copy(), the caller's kernels), without
  // blocking the host: CUDA records an event on cudaStreamLegacy and has the lane's
  // stream wait for it. Through CUDA's implicit synchronisation that work includes what
  // blocking streams (created without cudaStreamNonBlocking) issued before it, but not a
  // non-blocking stream's or the per-thread default stream's. Throws on failure.
  virtual void order_after_default(int lane) = 0;
  // The other direction: makes all the work issued on the legacy default stream from now
  // on (copy(), the caller's kernels, synchronize_default()) wait for every copy issued on
  // `lane` so far, without blocking the host (cudaStreamWaitEvent on cudaStreamLegacy for
  // the event behind the lane's last copy). What a read whose completion is stream-ordered
  // ends with instead of waiting for its lanes. Throws on failure.
  virtual void order_default_after(int lane) = 0;
  // Blocks until all work issued on the legacy default stream has finished
  // (cudaStreamSynchronize(cudaStreamLegacy)): for handing device buffers to a library
  // that is not stream-ordered (a CUDA-aware MPI or UCX, on the pass-through path).
  virtual void synchronize_default() = 0;

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
