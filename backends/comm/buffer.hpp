// Memory that frames live in: a non-owning view (Buffer) and an owning block (Storage).
// Every buffer carries its memory kind so backends can tell host from device memory;
// the frame header puts the kind on the wire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace commbench {

enum class MemoryKind : uint8_t { host = 0, cuda = 1 };
constexpr uint8_t kMemoryKindCount = 2;

std::string_view to_string(MemoryKind k) noexcept;
// Throws std::invalid_argument naming the accepted values.
MemoryKind parse_memory_kind(std::string_view s);

struct Buffer {
  void* data = nullptr;
  size_t size = 0;
  MemoryKind kind = MemoryKind::host;

  std::byte* bytes() const noexcept { return static_cast<std::byte*>(data); }
};

// Allocates memory of one kind. Host memory is built in; the CUDA part installs one for
// MemoryKind::cuda when a GPU is present.
class MemoryAllocator {
 public:
  virtual ~MemoryAllocator() = default;
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* p, size_t bytes) noexcept = 0;
};

namespace detail {
// Indexed by MemoryKind; set_allocator replaces entries. Visible here only so that
// allocator_for inlines: every receive's Storage::reserve asks for it.
extern MemoryAllocator* g_allocators[kMemoryKindCount];
}  // namespace detail

inline MemoryAllocator& allocator_for(MemoryKind kind) {
  return *detail::g_allocators[static_cast<uint8_t>(kind)];
}
// Replaces the allocator for `kind` (for tests and the CUDA module); returns the old one.
MemoryAllocator* set_allocator(MemoryKind kind, MemoryAllocator* a) noexcept;

// An owned block with a capacity, reused across receives so the steady state of a
// benchmark never allocates.
class Storage {
 public:
  Storage() = default;
  Storage(Storage&& o) noexcept { swap(o); }
  Storage& operator=(Storage&& o) noexcept {
    Storage tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~Storage() { release(); }

  // Makes room for `bytes` of `kind`; keeps the block when it is large enough. `from`
  // overrides the allocator for this block (e.g. pinned host memory for GPU staging).
  // The hit, which is every steady-state receive's, is inline; growing is not.
  void* reserve(size_t bytes, MemoryKind kind, MemoryAllocator* from = nullptr) {
    MemoryAllocator* a = from ? from : &allocator_for(kind);
    if (data_ && capacity_ >= bytes && kind_ == kind && alloc_ == a) [[likely]]
      return data_;
    return regrow(bytes, kind, a);
  }
  void release() noexcept;
  size_t capacity() const noexcept { return capacity_; }
  void* data() const noexcept { return data_; }
  MemoryKind kind() const noexcept { return kind_; }
  const MemoryAllocator* allocator() const noexcept { return alloc_; }
  void swap(Storage& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(capacity_, o.capacity_);
    std::swap(kind_, o.kind_);
    std::swap(alloc_, o.alloc_);
  }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
  MemoryKind kind_ = MemoryKind::host;
  MemoryAllocator* alloc_ = nullptr;  // the one that made data_

  void* regrow(size_t bytes, MemoryKind kind, MemoryAllocator* a);
};

}  // namespace commbench
