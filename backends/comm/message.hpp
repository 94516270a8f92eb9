// A message is an ordered list of frames, as in Dask (header, then payload frames).
//
// To send, point `frames` at your own memory: nothing is copied. A received message's
// frames point into storage the Message owns and reuses on the next read, so reading
// into the same Message in a loop allocates only when a frame grows.
#pragma once

#include <cstddef>
#include <vector>

#include "comm/buffer.hpp"

namespace commbench {

class Message {
 public:
  std::vector<Buffer> frames;

  Message() = default;
  explicit Message(std::vector<Buffer> f) : frames(std::move(f)) {}
  Message(Message&&) noexcept = default;
  Message& operator=(Message&&) noexcept = default;

  size_t total_bytes() const noexcept {
    size_t n = 0;
    for (const auto& f : frames) n += f.size;
    return n;
  }

  // Used by backends when a header arrives: `count` frames, each backed by owned storage.
  void prepare_frames(size_t count) {
    frames.resize(count);
    if (storage_.size() < count) storage_.resize(count);
  }
  Buffer& prepare_frame(size_t i, size_t size, MemoryKind kind) {
    MemoryAllocator* from = kind == MemoryKind::host ? host_allocator_ : nullptr;
    frames[i] = Buffer{storage_[i].reserve(size, kind, from), size, kind};
    return frames[i];
  }

  // Makes frame `i` (after prepare_frames) the first `size` bytes of `block`, which gets
  // the frame's previous storage in exchange: a backend that received a whole frame into
  // its own staging block hands the block over instead of copying it out. Only a host
  // block from the allocator this message's host frames come from is taken (a frame
  // must stay in pinned memory when the staging layer asked for it); otherwise nothing
  // happens, false is returned, and the caller copies.
  bool adopt_frame(size_t i, Storage& block, size_t size) noexcept {
    const MemoryAllocator* want =
        host_allocator_ ? host_allocator_ : &allocator_for(MemoryKind::host);
    if (!block.data() || block.kind() != MemoryKind::host || block.allocator() != want ||
        block.capacity() < size)
      return false;
    storage_[i].swap(block);
    frames[i] = Buffer{storage_[i].data(), size, MemoryKind::host};
    return true;
  }
  // Host frames received into this message come from `a` (nullptr = the default host
  // allocator): the GPU staging layer receives into pinned memory so its host-to-device
  // copies run asynchronously. `a` must outlive the message's storage.
  void set_host_allocator(MemoryAllocator* a) noexcept { host_allocator_ = a; }

 private:
  std::vector<Storage> storage_;
  MemoryAllocator* host_allocator_ = nullptr;
};

}  // namespace commbench
