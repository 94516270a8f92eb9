#include "gpu/allocation_table.hpp"

namespace commbench::gpu {

uint64_t AllocationTable::add(void* base, size_t size) {
  uint64_t id = next_id_++;
  by_base_[reinterpret_cast<uintptr_t>(base)] = Entry{size, id};
  return id;
}

void AllocationTable::remove(void* base) noexcept {
  by_base_.erase(reinterpret_cast<uintptr_t>(base));
}

std::optional<DeviceAllocation> AllocationTable::find(const void* p) const {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = by_base_.upper_bound(a);
  if (it == by_base_.begin()) return std::nullopt;
  --it;
  const size_t extent = it->second.size == 0 ? 1 : it->second.size;
  if (a - it->first >= extent) return std::nullopt;
  return DeviceAllocation{reinterpret_cast<void*>(it->first), it->second.size, it->second.id};
}

}  // namespace commbench::gpu
