// One outstanding MPI request, owned by the coroutine frame that posted it.
//
// An Op is linked into its comm's list while outstanding, so abort() can find and cancel
// it; a receive names its Channel, whose message count it bumps on completion (the close
// protocol compares counts to know when a tag may be reused). An Op that is destroyed
// while its request is still outstanding hands the request to the context's graveyard
// instead of leaving MPI pointing at a dead frame.
#pragma once

#include <mpi.h>

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <memory>
#include <new>

#include "runtime/cancel.hpp"
#include "runtime/handoff.hpp"

namespace commbench::mpi {

class Engine;
struct Channel;
struct Op;

// Carries an Op between the loop and the progress thread (mpi_thread_progress.hpp).
struct OpNode : HandoffNode {
  Op* op = nullptr;
};

// An op's trips to and from the progress thread (thread policy only). The comments say
// which thread writes each field; a field another thread reads is published by the
// trip's queue (release on push, acquire on take) or is atomic.
struct ThreadTrip {
  OpNode node;     // loop -> thread (submission), then thread -> loop (the handoff)
  OpNode reclaim;  // loop -> thread: give the request back unfinished
  size_t inflight = static_cast<size_t>(-1);  // loop: index in ThreadProgress's list
  bool reclaim_asked = false;                 // loop
  bool cancel_wanted = false;                 // loop: the reclaim is a cancellation
  bool abandon_wanted = false;                // loop: the reclaim is an abort
  bool reclaim_early = false;                 // thread: the reclaim came before the op
  bool returned = false;                      // thread: handed back unfinished, `req` live again
  std::atomic<bool> handed{false};            // thread: on its way back to the loop
  std::atomic<bool> reclaim_taken{false};     // thread: done with the reclaim node
  bool in_thread() const noexcept { return inflight != static_cast<size_t>(-1); }
};

// Intrusive list of a comm's outstanding ops.
struct OpList {
  Op* head = nullptr;
};

struct Op {
  static constexpr size_t npos = static_cast<size_t>(-1);

  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status status{};
  Engine* engine = nullptr;
  Channel* recv_channel = nullptr;  // set for receives on a data channel
  // A send on a data channel, counted in Channel::sent: the engine never cancels it (see
  // Engine::retire), so every message the close notice announces really arrives.
  bool counted_send = false;
  int error = MPI_SUCCESS;  // MPI error of a failed request
  bool aborted = false;     // cancelled by abort/close: resumes with CommClosedError
  bool cancelled = false;   // cancelled by its token
  bool timed_out = false;
  // While suspended in the batched engine, or with the progress thread.
  std::coroutine_handle<> handle;
  ThreadTrip trip;
  size_t slot = npos;         // index in the batched engine's RequestSet
  size_t thread_slot = npos;  // thread: index in the progress thread's RequestSet
  CancelToken token;
  CancelRegistration reg;
  // Membership of the comm's list.
  OpList* list = nullptr;
  Op* prev = nullptr;
  Op* next = nullptr;

  Op() = default;
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
  ~Op();

  void link(OpList& l) noexcept {
    list = &l;
    prev = nullptr;
    next = l.head;
    if (l.head) l.head->prev = this;
    l.head = this;
  }
  void unlink() noexcept {
    if (!list) return;
    if (prev)
      prev->next = next;
    else
      list->head = next;
    if (next) next->prev = prev;
    list = nullptr;
    prev = next = nullptr;
  }
  // The request finished (successfully or with an MPI error in `status`).
  void completed() noexcept;
};

// Up to four ops inline (a small message never allocates), more on the heap. Ops never
// move once posted, so the storage is fixed at construction. Only the n ops asked for
// are constructed: a one-message write used to build and destroy four (~130
// instructions of its ~500 outside MPI).
class OpBatch {
 public:
  explicit OpBatch(size_t n) : n_(n) {
    if (n > kInline)
      heap_ = std::make_unique<Op[]>(n);
    else
      for (size_t i = 0; i < n; ++i) new (&storage_[i * sizeof(Op)]) Op();
  }
  ~OpBatch() {
    if (!heap_)
      for (size_t i = n_; i-- > 0;) inline_ops()[i].~Op();
  }
  OpBatch(const OpBatch&) = delete;
  OpBatch& operator=(const OpBatch&) = delete;
  size_t size() const noexcept { return n_; }
  Op& operator[](size_t i) noexcept { return heap_ ? heap_[i] : inline_ops()[i]; }

 private:
  static constexpr size_t kInline = 4;
  Op* inline_ops() noexcept { return std::launder(reinterpret_cast<Op*>(storage_)); }
  size_t n_;
  alignas(Op) std::byte storage_[kInline * sizeof(Op)];
  std::unique_ptr<Op[]> heap_;
};

}  // namespace commbench::mpi
