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
    frames[i] = Buffer{storage_[i].reserve(size, kind), size, kind};
    return frames[i];
  }

 private:
  std::vector<Storage> storage_;
};

}  // namespace commbench
