#include "mpi/mpi_thread_progress.hpp"

#include <sched.h>

#include "runtime/event_loop.hpp"

namespace commbench::mpi {

namespace {
constexpr size_t npos = static_cast<size_t>(-1);
Op* op_of(HandoffNode* n) noexcept {
  return static_cast<OpNode*>(n)->op;
}
}  // namespace

ThreadProgress::ThreadProgress(EventLoop& loop) : handoff_(loop, "mpi-handoff") {
  ProgressThread::Hooks hooks;
  hooks.step = [this] { return step(); };
  hooks.owed = [this] { return handoff_.pending(); };
  // Nothing in the set and nothing handed over: parks until submit() or reclaim().
  hooks.idle = [this] {
    return set_.empty() && submitted_.empty_seq_cst() && reclaims_.empty_seq_cst();
  };
  thread_ = std::make_unique<ProgressThread>("mpi-progress", std::move(hooks));
}

ThreadProgress::~ThreadProgress() {
  stop([](Op&, MPI_Request) {});
}

// --- the loop's thread ---------------------------------------------------------------

void ThreadProgress::submit(Op& op) {
  ThreadTrip& t = op.trip;
  t.node.op = &op;
  t.node.handle = op.handle;
  t.reclaim.op = &op;
  t.reclaim_asked = t.cancel_wanted = t.abandon_wanted = false;
  t.reclaim_early = t.returned = false;
  op.thread_slot = npos;
  t.handed.store(false, std::memory_order_relaxed);
  t.reclaim_taken.store(false, std::memory_order_relaxed);
  t.inflight = inflight_.size();
  inflight_.push_back(&op);
  handoff_.expect();
  submitted_.push(&t.node);
  thread_->wake();
}

void ThreadProgress::reclaim(Op& op) {
  if (op.trip.reclaim_asked) return;
  op.trip.reclaim_asked = true;
  reclaims_.push(&op.trip.reclaim);
  thread_->wake();
}

void ThreadProgress::wait_reclaim_taken(Op& op) {
  // The thread reads the reclaim node (and so the op) once more after handing the op
  // back; it takes reclaims every round (microseconds), so this wait is short and rare.
  if (!op.trip.reclaim_asked) return;
  while (!op.trip.reclaim_taken.load(std::memory_order_acquire)) sched_yield();
}

void ThreadProgress::resumed(Op& op) {
  wait_reclaim_taken(op);
  handoff_.unexpect();
  size_t i = op.trip.inflight;
  inflight_[i] = inflight_.back();
  inflight_[i]->trip.inflight = i;
  inflight_.pop_back();
  op.trip.inflight = npos;
}

MPI_Request ThreadProgress::reclaim_now(Op& op) {
  reclaim(op);
  while (!op.trip.handed.load(std::memory_order_acquire)) sched_yield();
  wait_reclaim_taken(op);
  handoff_.take(&op.trip.node);  // schedules the others; drops this one
  resumed(op);
  return op.req;  // live if handed back unfinished, null if it completed
}

void ThreadProgress::stop(const std::function<void(Op&, MPI_Request)>& bury) {
  if (!thread_) return;
  thread_->stop();
  thread_.reset();
  // The thread is gone: what it held is ours now.
  for (Op* op : inflight_) {
    MPI_Request live = op->thread_slot != npos ? set_.request_of(*op) : op->req;
    op->trip.inflight = npos;
    bury(*op, live);
  }
  inflight_.clear();
  set_.clear();
}

// --- the progress thread ---------------------------------------------------------------

void ThreadProgress::give_back(Op& op) {
  op.trip.returned = true;
  op.trip.handed.store(true, std::memory_order_release);
  handoff_.post(&op.trip.node);  // from here on the op may be gone
}

bool ThreadProgress::step() {
  bool did = false;
  for (HandoffNode* n = submitted_.take_all(); n;) {
    HandoffNode* next = n->next;
    Op* op = op_of(n);
    did = true;
    if (op->trip.reclaim_early) {
      give_back(*op);  // op->req is still the live request
    } else {
      set_.add(*op, op->req);
    }
    n = next;
  }
  for (HandoffNode* n = reclaims_.take_all(); n;) {
    HandoffNode* next = n->next;
    Op* op = op_of(n);
    did = true;
    if (op->thread_slot != npos) {
      op->req = set_.remove(*op);
      give_back(*op);
    } else if (!op->trip.handed.load(std::memory_order_relaxed)) {
      op->trip.reclaim_early = true;  // its submission is still on the stack
    }
    op->trip.reclaim_taken.store(true, std::memory_order_release);
    n = next;
  }
  if (set_.empty() || !set_.test(done_)) return did;
  for (Op* op : done_) {
    op->trip.handed.store(true, std::memory_order_release);
    handoff_.post(&op->trip.node);
  }
  done_.clear();
  return true;
}

}  // namespace commbench::mpi
