#include "runtime/timer_queue.hpp"

#include <utility>

namespace commbench {

void TimerQueue::swap_nodes(size_t a, size_t b) noexcept {
  std::swap(heap_[a], heap_[b]);
  heap_[a]->index = a;
  heap_[b]->index = b;
}

void TimerQueue::sift_up(size_t i) noexcept {
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!less(i, parent)) break;
    swap_nodes(i, parent);
    i = parent;
  }
}

void TimerQueue::sift_down(size_t i) noexcept {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < heap_.size() && less(l, m)) m = l;
    if (r < heap_.size() && less(r, m)) m = r;
    if (m == i) return;
    swap_nodes(i, m);
    i = m;
  }
}

void TimerQueue::push(TimerNode* n) {
  n->index = heap_.size();
  heap_.push_back(n);
  sift_up(n->index);
}

void TimerQueue::remove(TimerNode* n) {
  if (!n->queued()) return;
  size_t i = n->index;
  size_t last = heap_.size() - 1;
  if (i != last) swap_nodes(i, last);
  heap_.pop_back();
  n->index = TimerNode::npos;
  if (i < heap_.size()) {
    TimerNode* moved = heap_[i];
    sift_up(i);
    sift_down(moved->index);
  }
}

TimerNode* TimerQueue::pop_expired(uint64_t now_ns) {
  if (heap_.empty() || heap_.front()->deadline_ns > now_ns) return nullptr;
  TimerNode* n = heap_.front();
  remove(n);
  return n;
}

}  // namespace commbench
