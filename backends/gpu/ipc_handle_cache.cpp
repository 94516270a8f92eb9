#include "gpu/ipc_handle_cache.hpp"

#include <iterator>
#include <stdexcept>

namespace commbench::gpu {

IpcRegion IpcExportCache::describe(const void* p) {
  auto a = ops_.find_allocation(p);
  if (!a)
    throw std::invalid_argument("CUDA IPC: the buffer is not in device memory of this device");
  const auto base = reinterpret_cast<uintptr_t>(a->base);
  auto it = by_base_.find(base);
  // A different id at a known base: that allocation was freed and this is a new one.
  if (it == by_base_.end() || it->second.first != a->id) {
    auto entry = std::make_pair(a->id, ops_.ipc_export(a->base));
    ++exports_;
    it = by_base_.insert_or_assign(base, entry).first;
  }
  return IpcRegion{it->second.second, base, a->size, a->id, reinterpret_cast<uintptr_t>(p) - base};
}

void IpcExportCache::prune() {
  for (auto it = by_base_.begin(); it != by_base_.end();) {
    auto a = ops_.find_allocation(reinterpret_cast<const void*>(it->first));
    bool live = a && reinterpret_cast<uintptr_t>(a->base) == it->first && a->id == it->second.first;
    it = live ? std::next(it) : by_base_.erase(it);
  }
}

IpcImportCache::~IpcImportCache() {
  clear();
}

void* IpcImportCache::map(uint64_t peer, const IpcRegion& r, size_t bytes) {
  if (r.offset > r.size || bytes > r.size - r.offset)
    throw std::invalid_argument("CUDA IPC: the region lies outside the peer's allocation");
  Key key{peer, r.base};
  auto it = mapped_.find(key);
  if (it != mapped_.end() && it->second.id == r.id && it->second.size == r.size) {
    ++hits_;
    return it->second.local + r.offset;
  }
  ++misses_;
  if (it != mapped_.end()) {  // the peer freed that allocation: its mapping is dead
    ops_.ipc_close(it->second.local);
    mapped_.erase(it);
  }
  auto* local = static_cast<std::byte*>(ops_.ipc_open(r.handle));
  mapped_.emplace(key, Mapping{r.id, r.size, local});
  return local + r.offset;
}

void IpcImportCache::forget_peer(uint64_t peer) noexcept {
  auto it = mapped_.lower_bound(Key{peer, 0});
  while (it != mapped_.end() && it->first.first == peer) {
    ops_.ipc_close(it->second.local);
    it = mapped_.erase(it);
  }
}

void IpcImportCache::clear() noexcept {
  for (auto& [key, m] : mapped_) ops_.ipc_close(m.local);
  mapped_.clear();
}

}  // namespace commbench::gpu
