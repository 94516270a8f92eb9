#include "comm/buffer.hpp"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace commbench {

std::string_view to_string(MemoryKind k) noexcept {
  switch (k) {
    case MemoryKind::host:
      return "host";
    case MemoryKind::cuda:
      return "cuda";
  }
  return "unknown";
}

MemoryKind parse_memory_kind(std::string_view s) {
  if (s == "host") return MemoryKind::host;
  if (s == "cuda") return MemoryKind::cuda;
  throw std::invalid_argument("unknown memory kind '" + std::string(s) + "' (known: host, cuda)");
}

namespace {

// Cache-line aligned for small blocks, page aligned for large ones (copies and NIC
// registration prefer it).
class HostAllocator final : public MemoryAllocator {
 public:
  void* allocate(size_t bytes) override {
    size_t align = bytes >= 65536 ? 4096 : 64;
    size_t rounded = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void deallocate(void* p, size_t) noexcept override { std::free(p); }
};

class NoCudaAllocator final : public MemoryAllocator {
 public:
  void* allocate(size_t) override {
    throw std::runtime_error("CUDA memory requested but no CUDA allocator is installed");
  }
  void deallocate(void*, size_t) noexcept override {}
};

HostAllocator g_host;
NoCudaAllocator g_no_cuda;

}  // namespace

MemoryAllocator* detail::g_allocators[kMemoryKindCount] = {&g_host, &g_no_cuda};

MemoryAllocator* set_allocator(MemoryKind kind, MemoryAllocator* a) noexcept {
  MemoryAllocator*& slot = detail::g_allocators[static_cast<uint8_t>(kind)];
  MemoryAllocator* old = slot;
  slot = a ? a
           : (kind == MemoryKind::host ? static_cast<MemoryAllocator*>(&g_host)
                                       : static_cast<MemoryAllocator*>(&g_no_cuda));
  return old;
}

void* Storage::regrow(size_t bytes, MemoryKind kind, MemoryAllocator* a) {
  release();
  data_ = a->allocate(bytes);
  capacity_ = bytes;
  kind_ = kind;
  alloc_ = a;
  return data_;
}

void Storage::release() noexcept {
  if (data_) alloc_->deallocate(data_, capacity_);
  data_ = nullptr;
  capacity_ = 0;
}

}  // namespace commbench
