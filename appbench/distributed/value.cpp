#include "distributed/value.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <vector>

namespace commbench::app {

Value make_value(std::span<const size_t> part_sizes, MemoryKind kind) {
  size_t total = 0;
  for (size_t s : part_sizes) total += (s + 63) / 64 * 64;
  auto storage = std::make_shared<Storage>();
  auto* base = static_cast<std::byte*>(storage->reserve(total == 0 ? 64 : total, kind));
  Value v;
  size_t off = 0;
  for (size_t s : part_sizes) {
    v.parts.push_back(Buffer{base + off, s, kind});
    off += (s + 63) / 64 * 64;
  }
  v.owner = std::move(storage);
  return v;
}

Value words_value(std::span<const uint64_t> words) {
  Value v = make_value({words.size_bytes()});
  if (!words.empty()) std::memcpy(v.parts[0].data, words.data(), words.size_bytes());
  return v;
}

bool value_words(const Value& v, std::span<uint64_t> out) {
  if (v.parts.size() != 1 || v.parts[0].size != out.size_bytes()) return false;
  if (!out.empty()) std::memcpy(out.data(), v.parts[0].data, out.size_bytes());
  return true;
}

namespace {

// Blocks of 64 KiB and more are kept on exact-size free lists; smaller ones go to malloc
// (it already caches them). Exact sizes suffice: a benchmark allocates the same block
// sizes run after run.
class PooledHostAllocator final : public MemoryAllocator {
 public:
  void* allocate(size_t bytes) override {
    if (bytes < kPooledFrom) return plain(bytes, 64);
    size_t rounded = (bytes + 4095) / 4096 * 4096;
    {
      std::lock_guard lock(mutex_);  // UCX or MPI progress threads may free receive memory
      auto it = free_.find(rounded);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        return p;
      }
    }
    return plain(rounded, 4096);
  }
  void deallocate(void* p, size_t bytes) noexcept override {
    if (!p) return;
    if (bytes < kPooledFrom) {
      std::free(p);
      return;
    }
    size_t rounded = (bytes + 4095) / 4096 * 4096;
    std::lock_guard lock(mutex_);
    try {
      free_[rounded].push_back(p);
    } catch (...) {
      std::free(p);
    }
  }

 private:
  static constexpr size_t kPooledFrom = 64 * 1024;
  static void* plain(size_t bytes, size_t align) {
    size_t rounded = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (!p) throw std::bad_alloc();
    return p;
  }
  std::mutex mutex_;
  std::map<size_t, std::vector<void*>> free_;
};

}  // namespace

void install_pooled_host_allocator() {
  // Never destroyed: a block still in flight may come back after static destructors ran,
  // and the cached blocks stay reachable through this pointer (not leaks) until exit.
  static auto* pool = new PooledHostAllocator;
  set_allocator(MemoryKind::host, pool);
}

}  // namespace commbench::app
