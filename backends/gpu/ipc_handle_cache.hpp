// CUDA IPC handle caches, as UCX's cuda_ipc transport keeps them: exporting a handle
// (cudaIpcGetMemHandle) and above all opening one (cudaIpcOpenMemHandle maps the peer's
// allocation, tens of microseconds) are far too slow per message, so each is done once
// per allocation and remembered.
//
// Sender: IpcExportCache::describe(p) names the allocation holding p and p's offset in
// it; the handle is exported on the first use of an allocation. Receiver:
// IpcImportCache::map(peer, region) opens the peer's handle on first use and returns
// the address in this process. An allocation is known by its base and its id (gpu/
// allocation_table.hpp): when the peer frees a buffer and allocates another at the same
// base, the new id makes both sides drop the old handle instead of using a dead mapping.
//
// CudaIpcComm (gpu/cuda_ipc_comm.hpp) keeps one of each per connection. Single-threaded,
// like the event loop that owns them.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

#include "gpu/device_ops.hpp"

namespace commbench::gpu {

// What the sender tells the receiver about one device buffer.
struct IpcRegion {
  IpcHandle handle;
  uint64_t base = 0;    // the allocation's base in the sender (the cache key)
  uint64_t size = 0;    // the allocation's size
  uint64_t id = 0;      // the allocation's id in the sender
  uint64_t offset = 0;  // where the buffer starts in the allocation
};

class IpcExportCache {
 public:
  explicit IpcExportCache(DeviceOps& ops) : ops_(ops) {}

  // The region of `p`, exporting its allocation's handle unless that allocation was
  // exported before. Throws std::invalid_argument when p is not in the device's memory.
  IpcRegion describe(const void* p);
  // Drops the handles of allocations that were freed (their entries are never served,
  // but a freed base that is not reused would keep one).
  void prune();

  size_t exports() const noexcept { return exports_; }
  size_t entries() const noexcept { return by_base_.size(); }

 private:
  DeviceOps& ops_;
  // By the allocation's base: the allocation's id and its handle.
  std::unordered_map<uintptr_t, std::pair<uint64_t, IpcHandle>> by_base_;
  size_t exports_ = 0;
};

class IpcImportCache {
 public:
  explicit IpcImportCache(DeviceOps& ops) : ops_(ops) {}
  ~IpcImportCache();
  IpcImportCache(const IpcImportCache&) = delete;
  IpcImportCache& operator=(const IpcImportCache&) = delete;

  // This process's address of `bytes` at region.offset in `peer`'s allocation, opening
  // the handle on first use. A known base with another id or size was freed by the peer:
  // its mapping is closed and the new handle opened. Throws std::invalid_argument when
  // the bytes lie outside the allocation, and what DeviceOps::ipc_open throws.
  void* map(uint64_t peer, const IpcRegion& region, size_t bytes);
  // Closes the mappings of `peer` (it disconnected) or of all peers.
  void forget_peer(uint64_t peer) noexcept;
  void clear() noexcept;

  size_t hits() const noexcept { return hits_; }
  size_t misses() const noexcept { return misses_; }
  size_t entries() const noexcept { return mapped_.size(); }

 private:
  struct Mapping {
    uint64_t id;
    uint64_t size;
    std::byte* local;  // the allocation's base in this process
  };
  using Key = std::pair<uint64_t, uint64_t>;  // peer, the allocation's base in the peer
  DeviceOps& ops_;
  std::map<Key, Mapping> mapped_;
  size_t hits_ = 0, misses_ = 0;
};

}  // namespace commbench::gpu
