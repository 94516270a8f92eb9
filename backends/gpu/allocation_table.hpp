// The live allocations of one device allocator, so an address can be traced back to the
// allocation holding it. CUDA IPC hands out whole allocations, and an address freed and
// allocated again must not be mistaken for the old buffer: each allocation gets an id
// that is never reused (UCX's cuda_ipc asks the driver for its buffer id instead; we keep
// to the runtime API, see cuda/CMakeLists.txt). Allocations are rare next to messages, so
// an ordered map is cheap enough. Not thread-safe, like the allocators that use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace commbench::gpu {

struct DeviceAllocation {
  void* base = nullptr;
  size_t size = 0;
  uint64_t id = 0;  // unique per allocation in this process, never 0
};

class AllocationTable {
 public:
  // Records an allocation; returns its id.
  uint64_t add(void* base, size_t size);
  // The id the next add() returns.
  uint64_t next_id() const noexcept { return next_id_; }
  // Forgets the allocation starting at `base` (no-op when unknown).
  void remove(void* base) noexcept;
  // The allocation holding `p` (a 0-byte allocation holds its base), or nullopt.
  std::optional<DeviceAllocation> find(const void* p) const;
  size_t live() const noexcept { return by_base_.size(); }

 private:
  struct Entry {
    size_t size;
    uint64_t id;
  };
  std::map<uintptr_t, Entry> by_base_;
  uint64_t next_id_ = 1;
};

}  // namespace commbench::gpu
