// A UCP context + worker driven by the event loop, and the awaitable a coroutine waits on
// one of its requests with. Each ucx Backend owns one data worker (its progress policy)
// and one control worker, shared by all its listeners, connectors and comms. The parts
// live by concept: the request (ucx_op.hpp), the endpoints (ucx_endpoint.hpp), the
// loop's side of the worker (ucx_engine.hpp), the policies' table (ucx_progress.hpp).
//
// Why per backend rather than per loop: a benchmark interleaves ucx:polling, ucx:event
// and ucx:cooperative in one process and loop. Were they to share a worker, one policy's
// engine would progress the others' requests and the figures would be of a mixture.
//
// How each policy drives the worker: ucx_progress.hpp.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/cancel.hpp"
#include "runtime/event_loop.hpp"
#include "runtime/handoff.hpp"
#include "runtime/progress_thread.hpp"
#include "ucx/ucx_endpoint.hpp"
#include "ucx/ucx_engine.hpp"
#include "ucx/ucx_err_mode.hpp"
#include "ucx/ucx_op.hpp"
#include "ucx/ucx_progress.hpp"
#include "ucx/ucx_status.hpp"

namespace commbench::ucx {

class Worker : public std::enable_shared_from_this<Worker> {
 public:
  // `mode` matters to data workers only (the control worker's endpoints always have peer
  // error handling).
  Worker(EventLoop& loop, Progress p, DataErrMode mode = DataErrMode::nocma);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  ucp_worker_h handle() const noexcept { return worker_; }
  EventLoop& loop() const noexcept { return loop_; }
  Progress policy() const noexcept { return policy_; }
  ucp_context_h context() const noexcept { return context_; }
  // Error handling of the data endpoints made on this worker (ucx_err_mode.hpp). No error
  // callback under PEER: the connection endpoint already reports the loss, and this
  // one's callback would run on the progress thread under the thread policies.
  ucp_err_handling_mode_t data_err_mode() const noexcept { return ucp_mode(data_mode_); }

  // ucp_worker_progress, then the housekeeping the callbacks deferred to us.
  unsigned progress() {
    unsigned n = ucp_worker_progress(worker_);
    if (!failed_.empty() || !closing_.empty()) [[unlikely]]
      housekeeping();
    return n;
  }

  // A tag no other connection of this worker receives on (64 bits, never reused).
  uint64_t new_tag() noexcept { return next_tag_++; }
  // Non-null under the thread policies: where the progress thread hands completions.
  Handoff* handoff() const noexcept { return handoff_.get(); }
  // Thread policies: the loop posted a request; wake a sleeping progress thread.
  void posted() noexcept {
    if (policy_ != Progress::thread_blocking) return;
    posts_.fetch_add(1, std::memory_order_seq_cst);
    if (thread_->asleep()) ucp_worker_signal(worker_);
  }
  // ucp_request_cancel, made safe against the progress thread. UCX 1.13 tests a request's
  // COMPLETED flag before it takes the worker lock, so a receive that the progress thread
  // completed in between reached ucp_tag_exp_remove's assertion and aborted the process
  // (transpose_sum on ucx:thread-blocking, 3 copies at once: 7 runs in 540;
  // results/thread-fixes-2026-11-27). Every step
  // of the progress thread holds step_mutex_, and so does this: a cancel sees the request
  // before or after a whole step, never during one.
  void cancel(void* request) noexcept;
  // Progress until nothing happens (bounded), e.g. before giving up on a dead peer.
  void drain() {
    for (int i = 0; i < 1000 && ucp_worker_progress(worker_) != 0; ++i) {
    }
  }
  // This worker's address, for the peer's data endpoint.
  const std::vector<std::byte>& address() const noexcept { return address_; }

  // Awaitable for `op`, whose request UCP returned: a plain object in the awaiting
  // coroutine's frame, no coroutine of its own. It tests op.done before suspending, so a
  // request already complete costs no suspension, and once UCP has completed the request
  // it frees it and the co_await yields true. Under the cooperative policy each await
  // progresses the worker itself (a few tries) and, should the request still be in flight,
  // goes to the back of the ready queue once and yields false; so callers loop, as with
  // MPI's Engine::wait:  while (!co_await worker.wait(op, token, hook)) {}
  // When `token` fires, `hook` asks UCP to finish the request early; the wait still ends
  // only when UCP completes it, so no callback can outlive the op. Completion with an
  // error is op.status, for the caller to judge.
  class Wait {
   public:
    Wait(Worker& w, Op& op, CancelToken token, CancelHook hook) noexcept
        : w_(w), op_(op), token_(token), hook_(hook) {}
    bool await_ready() {
      if (op_.done) return true;
      return w_.policy_ == Progress::cooperative && w_.cooperative_tries(op_, token_, hook_);
    }
    bool await_suspend(std::coroutine_handle<> h);
    bool await_resume() noexcept {
      if (suspended_) resumed();
      if (!op_.done) return false;  // cooperative: try again
      ucp_request_free(op_.request);
      op_.request = nullptr;
      return true;
    }

   private:
    static void on_cancel(CancelRegistration* r);
    void resumed() noexcept;
    Worker& w_;
    Op& op_;
    CancelToken token_;
    CancelHook hook_;
    bool suspended_ = false;   // polling/event: counted in waiting_ until resumed
    bool registered_ = false;  // reg_ is linked into the token's state
    CancelRegistration reg_;
  };
  Wait wait(Op& op, CancelToken token, CancelHook hook) noexcept {
    return Wait(*this, op, token, hook);
  }

  // Something that needs background progress while nobody waits (a listener, an
  // endpoint being closed) registers for that while it lives.
  void add_user() noexcept { ++users_; }
  void remove_user() noexcept { --users_; }

  // Hands over an endpoint close request (or nullptr if it finished at once); the
  // worker completes and frees it and keeps `state` alive until then.
  void adopt_close(void* request, std::shared_ptr<EndpointState> state);
  // Called by an endpoint's error handler (inside ucp_worker_progress).
  void endpoint_failed(std::shared_ptr<EndpointState> state);

 private:
  friend class WorkerEngine;  // the loop's side of this worker (ucx_engine.hpp)
  void start_thread();
  // Cooperative: progresses until `op` is done or a few tries found nothing; true if done.
  bool cooperative_tries(Op& op, CancelToken token, CancelHook hook);
  void housekeeping();
  void discard_unexpected() noexcept;
  bool busy() const noexcept { return waiting_ + users_ + closing_.size() > 0; }

  EventLoop& loop_;
  Progress policy_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  DataErrMode data_mode_;
  int efd_ = -1;
  std::unique_ptr<WorkerEngine> engine_;
  std::unique_ptr<Handoff> handoff_;        // thread policies
  std::unique_ptr<ProgressThread> thread_;  // thread policies; stopped first
  std::atomic<uint64_t> posts_{0};          // thread-blocking: requests posted (posted())
  uint64_t progressed_posts_ = 0;           // progress thread only: posts_ at its last step
  std::mutex step_mutex_;                   // a progress-thread step, or a cancel
  std::vector<std::byte> address_;
  uint64_t next_tag_ = 1;
  size_t waiting_ = 0;  // coroutines suspended on a request (polling/event)
  size_t users_ = 0;
  bool woken_ = false;  // event/control: the fd fired or arm said BUSY; progress next turn
  bool armed_ = false;  // control: armed and not progressed since
  unsigned ticks_ = 0;  // control: turns since the last progress
  struct Closing {
    void* request;
    std::shared_ptr<EndpointState> state;
  };
  std::vector<Closing> closing_;
  std::vector<std::shared_ptr<EndpointState>> failed_;
};

}  // namespace commbench::ucx
