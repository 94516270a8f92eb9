// The mpi backend's `thread` policy: a dedicated progress thread owns every pending
// request and tests them all back to back (MPI_Testsome); completions reach the loop
// through a Handoff (runtime/handoff.hpp). MPI must run at MPI_THREAD_MULTIPLE: the
// loop's thread keeps posting and testing its own new requests meanwhile.
//
// An op travels: the loop submits it (its live request in op.req) onto a lock-free
// stack; the thread moves it into its set; when MPI_Testsome finds it complete the
// thread fills in op.status and hands it back. To cancel or abort an op the loop asks
// for it back (reclaim): the thread removes it from its set and hands it back with its
// request still live, for the loop to bury as the other policies do. Nothing but the
// thread touches a request between submission and hand-back, as MPI requires of a
// request shared by threads.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include "mpi/mpi_op.hpp"
#include "mpi/mpi_request_set.hpp"
#include "runtime/handoff.hpp"
#include "runtime/mpsc_stack.hpp"
#include "runtime/progress_thread.hpp"

namespace commbench {
class EventLoop;
}

namespace commbench::mpi {

class ThreadProgress {
 public:
  explicit ThreadProgress(EventLoop& loop);
  ~ThreadProgress();
  ThreadProgress(const ThreadProgress&) = delete;
  ThreadProgress& operator=(const ThreadProgress&) = delete;

  // --- the loop's thread -------------------------------------------------------------
  // Hands `op` (op.req live, op.handle its suspended waiter) to the thread.
  void submit(Op& op);
  // Asks for `op` back unfinished (once per op; it still comes back completed if the
  // thread finished it first).
  void reclaim(Op& op);
  // `op`'s waiter resumed (after the hand-back): forget it.
  void resumed(Op& op);
  // `op`'s frame is going away while the thread may hold it: waits until the thread lets
  // go and drops it from the handoff. Its live request, or MPI_REQUEST_NULL if it
  // completed.
  MPI_Request reclaim_now(Op& op);
  // Stops the thread; then `bury(op, live request or MPI_REQUEST_NULL)` for every op
  // still submitted (their waiters never resume).
  void stop(const std::function<void(Op&, MPI_Request)>& bury);

 private:
  bool step();  // the progress thread: one round
  void give_back(Op& op);
  void wait_reclaim_taken(Op& op);

  Handoff handoff_;
  MpscStack<HandoffNode> submitted_;
  MpscStack<HandoffNode> reclaims_;
  // The progress thread's own.
  RequestSet<&Op::thread_slot> set_;
  std::vector<Op*> done_;
  // The loop's own: every op submitted and not yet resumed.
  std::vector<Op*> inflight_;
  std::unique_ptr<ProgressThread> thread_;  // last: starts after the rest exists
};

}  // namespace commbench::mpi
