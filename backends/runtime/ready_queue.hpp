// FIFO of coroutines ready to resume: a growable power-of-two ring buffer, so pushing
// and popping are a store and an index increment once it has grown to the working size.
#pragma once

#include <coroutine>
#include <cstddef>
#include <vector>

namespace commbench {

class ReadyQueue {
 public:
  ReadyQueue() : ring_(64) {}

  bool empty() const noexcept { return head_ == tail_; }
  size_t size() const noexcept { return tail_ - head_; }

  void push(std::coroutine_handle<> h) {
    if (size() == ring_.size()) grow();
    ring_[tail_++ & (ring_.size() - 1)] = h;
  }
  std::coroutine_handle<> pop() noexcept { return ring_[head_++ & (ring_.size() - 1)]; }

 private:
  void grow() {
    std::vector<std::coroutine_handle<>> bigger(ring_.size() * 2);
    size_t n = size();
    for (size_t i = 0; i < n; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_.swap(bigger);
    head_ = 0;
    tail_ = n;
  }
  std::vector<std::coroutine_handle<>> ring_;
  size_t head_ = 0;
  size_t tail_ = 0;
};

}  // namespace commbench
