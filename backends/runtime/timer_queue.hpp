// Intrusive binary min-heap of timers keyed by deadline (ns, monotonic clock).
//
// Nodes live inside the awaiting coroutine frames, so inserting a timer never allocates
// once the heap's vector has grown; each node knows its index, so cancelling is O(log n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commbench {

struct TimerNode {
  uint64_t deadline_ns = 0;
  size_t index = npos;
  void (*fire)(TimerNode*) = nullptr;
  void* owner = nullptr;  // the wait this timer belongs to
  static constexpr size_t npos = static_cast<size_t>(-1);
  bool queued() const noexcept { return index != npos; }
};

class TimerQueue {
 public:
  bool empty() const noexcept { return heap_.empty(); }
  size_t size() const noexcept { return heap_.size(); }
  uint64_t next_deadline() const noexcept { return heap_.front()->deadline_ns; }

  void push(TimerNode* n);
  void remove(TimerNode* n);
  // Removes and returns the earliest timer if its deadline is <= now, else nullptr.
  TimerNode* pop_expired(uint64_t now_ns);

 private:
  bool less(size_t a, size_t b) const noexcept {
    return heap_[a]->deadline_ns < heap_[b]->deadline_ns;
  }
  void swap_nodes(size_t a, size_t b) noexcept;
  void sift_up(size_t i) noexcept;
  void sift_down(size_t i) noexcept;

  std::vector<TimerNode*> heap_;
};

}  // namespace commbench
