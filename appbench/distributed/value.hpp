// A task result as workers keep it: one or more parts (columns, blocks) in memory owned
// by `owner`. Parts are what goes on the wire, one frame each, without copies; a value
// received from a peer is owned by the Message it was read into, and a view of another
// value (a shuffle piece) shares its owner.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "comm/buffer.hpp"

namespace commbench::app {

struct Value {
  std::shared_ptr<const void> owner;
  std::vector<Buffer> parts;

  // The memory kind of its parts (host for a value without parts).
  MemoryKind kind() const noexcept { return parts.empty() ? MemoryKind::host : parts[0].kind; }
  uint64_t nbytes() const noexcept {
    uint64_t n = 0;
    for (const auto& p : parts) n += p.size;
    return n;
  }
  template <typename T>
  std::span<T> part(size_t i) const {
    return {static_cast<T*>(parts[i].data), parts[i].size / sizeof(T)};
  }
};

// A value whose parts have these sizes, in one allocation of memory kind `kind` (64-byte
// aligned parts). Device memory comes from the allocator registered for its kind
// (comm/buffer.hpp); the runtime never touches its bytes, only moves its parts as frames.
Value make_value(std::span<const size_t> part_sizes, MemoryKind kind = MemoryKind::host);
inline Value make_value(std::initializer_list<size_t> part_sizes,
                        MemoryKind kind = MemoryKind::host) {
  return make_value(std::span<const size_t>(part_sizes.begin(), part_sizes.size()), kind);
}

// A small result of fixed-width words (a checksum, a summary) as a one-part value, and
// back: value_words fills `out` and says whether the value had exactly that many words.
Value words_value(std::span<const uint64_t> words);
inline Value words_value(std::initializer_list<uint64_t> words) {
  return words_value(std::span<const uint64_t>(words.begin(), words.size()));
}
bool value_words(const Value& v, std::span<uint64_t> out);

// Replaces the host allocator of this process by one that keeps freed large blocks for
// reuse (what dask-cuda's RMM pool does for device memory): a repeated benchmark run then
// reuses warm pages instead of faulting in fresh ones for every block and every receive.
void install_pooled_host_allocator();

}  // namespace commbench::app
