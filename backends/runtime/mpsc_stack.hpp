// A lock-free stack that many threads push onto and one thread empties at once (Treiber's
// push; the consumer exchanges the whole list, so there is no ABA problem). Nodes are
// intrusive (a `next` member), so handing an object to another thread never allocates.
// take_all() returns the nodes oldest first.
#pragma once

#include <atomic>

namespace commbench {

template <typename Node>
class MpscStack {
 public:
  // Any thread. Sequentially consistent, so a pusher that then reads a flag the consumer
  // set before looking at the stack forms a Dekker pair with it (see handoff.hpp).
  void push(Node* n) noexcept {
    Node* old = head_.load(std::memory_order_relaxed);
    do {
      n->next = old;
    } while (
        !head_.compare_exchange_weak(old, n, std::memory_order_seq_cst, std::memory_order_relaxed));
  }
  bool empty() const noexcept { return head_.load(std::memory_order_relaxed) == nullptr; }
  bool empty_seq_cst() const noexcept { return head_.load(std::memory_order_seq_cst) == nullptr; }
  // The consumer: everything pushed so far, oldest first (linked through `next`).
  Node* take_all() noexcept {
    if (empty()) return nullptr;
    Node* n = head_.exchange(nullptr, std::memory_order_acquire);
    Node* fifo = nullptr;
    while (n) {
      Node* next = n->next;
      n->next = fifo;
      fifo = n;
      n = next;
    }
    return fifo;
  }

 private:
  std::atomic<Node*> head_{nullptr};
};

}  // namespace commbench
