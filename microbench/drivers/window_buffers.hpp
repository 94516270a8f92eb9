// The receive buffers of one bandwidth window, shared by every driver.
//
// A coroutine read owns the message it fills, so a window of W messages in flight needs W
// buffers; the raw baselines receive the same way by default, so both sides of a ratio
// move the same memory. At most kWindowReceiveBudget bytes in all: beyond that a window
// is received in batches of window_slots() messages that reuse the buffers. With `shared`
// (OSU's method, --recv-buffers shared) every message of the window lands in one buffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace commbench {

constexpr size_t kWindowReceiveBudget = size_t{1} << 30;

// How many messages of `size` bytes one batch of a window may have in flight (>= 1).
inline size_t window_slots(size_t size, size_t window) {
  return std::min(window, std::max<size_t>(1, kWindowReceiveBudget / std::max<size_t>(size, 1)));
}

class WindowBuffers {
 public:
  // Makes the buffers ready for a window of `window` messages of `size` bytes; returns
  // how many receives may be posted at once. Buffers beyond what this size needs are
  // freed, so the budget holds however the sizes of a sweep follow each other.
  size_t prepare(size_t size, size_t window, bool shared) {
    shared_ = shared;
    slots_ = shared ? window : window_slots(size, window);
    bufs_.resize(shared ? 1 : slots_);
    for (auto& b : bufs_)
      if (b.size() < std::max<size_t>(size, 1)) b.resize(std::max<size_t>(size, 1));
    return slots_;
  }
  // The buffer of the i-th receive of a batch (any i: batches reuse the buffers).
  std::byte* operator[](size_t i) noexcept { return bufs_[shared_ ? 0 : i % slots_].data(); }

 private:
  std::vector<std::vector<std::byte>> bufs_;
  size_t slots_ = 0;
  bool shared_ = false;
};

}  // namespace commbench
