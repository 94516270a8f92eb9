// The progress engine of one MPI backend on one event loop, and the awaitable every
// send and receive goes through.
//
// Awaiting an Op first calls MPI_Test (await_ready): a request that completes at once
// (an eager send, a message already there) never suspends. Otherwise the policy decides:
//   cooperative  the waiting coroutine goes to the back of the ready queue and tests its
//                own request again next turn (MPI4Dask's `while not Test: await sleep(0)`);
//                callers loop `while (!co_await engine.wait(op)) {}`.
//   batched      the op joins this engine's set; each loop turn one MPI_Testsome over
//                the whole set resumes exactly the coroutines whose requests finished.
//   thread       the op goes to a dedicated progress thread (mpi_thread_progress.hpp),
//                which tests every pending request back to back and hands completions
//                back through a lock-free queue; the loop sleeps meanwhile.
//   blocking     MPI_Wait inside await_suspend: the whole loop stops until the request
//                completes. A measurement baseline only: it deadlocks whenever the
//                request needs this rank's loop to do something else first (both ranks
//                waiting on a large send to each other, a self-connection, a listener on
//                the same rank), and it ignores cancellation and timeouts.
// The engine is also the loop's poller for the process-wide control channel (accepts,
// close notices, cancelled requests). MPI cannot arm a file descriptor, so while it has
// work the loop naps with back-off instead of blocking, and an idle rank yields its core.
#pragma once

#include <coroutine>
#include <memory>
#include <vector>

#include "mpi/mpi_op.hpp"
#include "mpi/mpi_progress.hpp"
#include "mpi/mpi_request_set.hpp"
#include "mpi/mpi_thread_progress.hpp"
#include "runtime/event_loop.hpp"
#include "runtime/poller.hpp"

namespace commbench::mpi {

class Context;

class Engine final : public Poller {
 public:
  Engine(EventLoop& loop, Progress progress, std::shared_ptr<Context> ctx);
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  EventLoop& loop() noexcept { return loop_; }
  Context& context() noexcept { return *ctx_; }
  Progress progress() const noexcept { return progress_; }

  class Wait {
   public:
    Wait(Engine& e, Op& op, CancelToken t, Progress p) noexcept
        : e_(e), op_(op), token_(t), policy_(p) {}
    bool await_ready();
    bool await_suspend(std::coroutine_handle<> h);
    // True when the request finished; false (cooperative only) to test again. Throws
    // CommClosedError after abort, TimeoutError/OperationCancelled after cancellation.
    bool await_resume();

   private:
    Engine& e_;
    Op& op_;
    CancelToken token_;
    Progress policy_;
    bool done_ = false;
  };

  // Awaitable for `op` under this engine's policy.
  Wait wait(Op& op, CancelToken token = {}) noexcept {
    op.engine = this;
    return Wait(*this, op, token, progress_);
  }
  // Control traffic always waits batched: a blocking wait on a reply this very rank
  // must produce (self-connection) would never return.
  Wait wait_batched(Op& op, CancelToken token = {}) noexcept {
    op.engine = this;
    return Wait(*this, op, token, Progress::batched);
  }

  // Hands op's request to the graveyard (retire) and, with `resume`, resumes its waiter,
  // which then throws CommClosedError.
  void abandon(Op& op, bool resume = true) noexcept;

  // Poller.
  const char* name() const noexcept override { return "mpi"; }
  bool has_work() const noexcept override;
  bool poll() override;
  ArmResult try_arm() override;

 private:
  friend class Wait;
  void add(Op& op);
  // Hands op's outstanding request `r` to the graveyard, cancelled first unless it is a
  // counted data send (see the definition).
  void retire(const Op& op, MPI_Request r) noexcept;
  static void on_cancel(CancelRegistration* r);
  static void on_cancel_thread(CancelRegistration* r);
  // Thread policy: the waiter of `op` resumed after the thread handed it back.
  void thread_returned(Op& op);
  bool test_set();

  EventLoop& loop_;
  Progress progress_;
  std::shared_ptr<Context> ctx_;
  RequestSet<&Op::slot> set_;
  std::vector<Op*> done_;
  std::unique_ptr<ThreadProgress> thread_;  // the thread policy's
  unsigned tick_ = 0;
  unsigned last_completion_tick_ = 0;  // tick_ when a request last completed
};

}  // namespace commbench::mpi
