// A UCP context + worker driven by the event loop, and the three ways of driving it.
// Each ucx Backend owns one data worker (its progress policy) and one control worker,
// shared by all its listeners, connectors and comms.
//
// Why per backend rather than per loop: a benchmark interleaves ucx:polling, ucx:event
// and ucx:cooperative in one process and loop. Were they to share a worker, one policy's
// engine would progress the others' requests and the figures would be of a mixture.
//
//   polling      a Poller registered with the loop calls ucp_worker_progress every turn
//                while anything waits on the worker (UCX-Py's polling mode); it never
//                arms, so an idle loop naps with back-off;
//   event        the worker's event fd sits in the loop's epoll; progress runs only after
//                the fd fired or ucp_worker_arm said BUSY, and the loop arms and sleeps as
//                soon as a turn finds nothing to do (UCX-Py's blocking mode);
//   cooperative  no engine: every waiting coroutine calls ucp_worker_progress itself and
//                yields between tries (MPI4Dask's `while not req.Test(): await sleep(0)`);
//                while no other coroutine is ready it makes a few tries per yield.
//   thread       a ProgressThread calls ucp_worker_progress back to back (UCXX's polling
//                progress thread); the worker runs in UCS_THREAD_MODE_MULTI, since the
//                loop's thread posts requests while the progress thread progresses, and
//                each completion is handed to the loop through a Handoff;
//   thread-blocking  the same thread progresses until idle, arms the worker and sleeps
//                on its fd; a request the loop posts while it sleeps signals the worker
//                (ucp_worker_signal), since nothing else would wake it to progress that.
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
#include "runtime/poller.hpp"
#include "runtime/progress_thread.hpp"
#include "ucx/ucx_err_mode.hpp"
#include "ucx/ucx_progress.hpp"

namespace commbench::ucx {

// "what: UCX status text".
std::string status_message(const std::string& what, ucs_status_t status);

// One outstanding UCP request as seen by the coroutine waiting for it. It lives in that
// coroutine's frame and is the request's user_data; the completion callback fills it in
// and, unless the waiter drives progress itself, resumes the waiter through the loop.
struct Op {
  EventLoop* loop = nullptr;
  void* request = nullptr;
  ucs_status_t status = UCS_INPROGRESS;
  size_t length = 0;         // bytes received (receives only)
  ucp_tag_t sender_tag = 0;  // the tag it was sent with (receives only)
  // Set by the completion, on the progress thread under the thread policies: status,
  // length and sender_tag are written before it (release) and read after it (acquire).
  std::atomic<bool> done{false};
  bool cancel_asked = false;  // cooperative: the CancelHook ran (once per op)
  std::coroutine_handle<> waiter;
  // Thread policies only (set when the request is posted, null otherwise): the waiter
  // and the completion race from two threads, so they meet in `handoff_state`: whoever
  // comes second (the completion after the waiter suspended) posts `node` to the loop.
  Handoff* handoff = nullptr;
  std::atomic<int> handoff_state{0};  // kIdle, kWaiting, kDone
  HandoffNode node;
  static constexpr int kIdle = 0, kWaiting = 1, kDone = 2;

  // Completed on the spot by the posting call, on the loop's thread.
  void finish_now(ucs_status_t s) noexcept {
    status = s;
    done.store(true, std::memory_order_relaxed);
  }
  void complete(ucs_status_t s) noexcept {
    status = s;
    if (handoff) {
      done.store(true, std::memory_order_release);
      if (handoff_state.exchange(kDone, std::memory_order_acq_rel) == kWaiting)
        handoff->post(&node);
      return;
    }
    done.store(true, std::memory_order_relaxed);
    if (waiter) loop->schedule(std::exchange(waiter, {}));
  }
  // UCP callbacks; user_data is the Op.
  static void on_send(void* request, ucs_status_t status, void* user_data) noexcept;
  static void on_tag_recv(void* request, ucs_status_t status, const ucp_tag_recv_info_t* info,
                          void* user_data) noexcept;
  static void on_stream_recv(void* request, ucs_status_t status, size_t length,
                             void* user_data) noexcept;
};

// How a wait asks UCP to give up a request when its CancelToken fires (receives:
// ucp_request_cancel; sends: close the endpoint, which completes them with an error).
struct CancelHook {
  void (*fn)(void* arg, void* request) = nullptr;
  void* arg = nullptr;
};

class Worker;

// The ucp endpoints this process holds, over every worker: counted when ucp_ep_create
// succeeds and when we give one up (ucp_ep_close_nbx, or left to ucp_worker_destroy), so
// the scaling probe reports a count, not an estimate (Backend::resources()).
void endpoint_created() noexcept;
void endpoint_released() noexcept;
long long live_endpoints() noexcept;

// What an endpoint's error handler needs; kept alive by its comm and, while the endpoint
// is being closed, by the worker, so a late callback never touches freed memory.
//
// A connection has two endpoints. `ep` comes from the socket-address connection (the
// listener's connection manager) with peer error handling: it carries the handshake and
// is how a dead or departed peer is noticed. Peer error handling rules out UCX's shared
// memory transports (it keeps only those that can detect a peer's failure: TCP here), so
// the tag traffic goes over `data`, an endpoint made from the peer's worker address
// (exchanged in the handshake) without error handling, which may use shared memory and
// CMA like any MPI would. When `ep` fails both are closed and the receive is cancelled.
// The two endpoints live on two workers: `ep` on the loop's control worker, `data` on the
// policy's data worker. Connection-manager endpoints (TCP here) would make every
// ucp_worker_progress of the data path pay an epoll_wait system call on the TCP
// interface; on their own worker they cost nothing per message.
struct EndpointState : std::enable_shared_from_this<EndpointState> {
  std::weak_ptr<Worker> worker;       // control worker (owns `ep`)
  std::weak_ptr<Worker> data_worker;  // owns `data` and the receives
  ucp_ep_h ep = nullptr;              // connection-manager endpoint: handshake, failure detection
  ucp_ep_h data = nullptr;            // worker-address endpoint: every tag message
  ucs_status_t error = UCS_OK;        // set by the error handler
  bool failed = false;                // the handler ran; the endpoint has been closed by us
  bool closing = false;               // we are closing it ourselves: ignore the handler
  void* pending_recv = nullptr;       // the comm's outstanding receive, cancelled on failure
  unsigned sends_in_flight = 0;       // the comm's tag sends posted and not yet completed

  static void on_error(void* arg, ucp_ep_h ep, ucs_status_t status) noexcept;
  // Closes both endpoints at once: `ep` by force (its outstanding requests complete with
  // an error), `data` by flush, or not at all while sends on it are in flight (see the
  // definition); the worker finishes the close requests and keeps this state alive
  // until then.
  void force_close() noexcept;
};

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
  class Engine;
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
  std::unique_ptr<Engine> engine_;
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
