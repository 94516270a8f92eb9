// One outstanding UCP request as the coroutine waiting for it sees it, and how a wait asks
// UCP to give a request up. The worker's awaitable (ucx_worker.hpp) waits on an Op.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <utility>

#include "runtime/event_loop.hpp"
#include "runtime/handoff.hpp"

namespace commbench::ucx {

// It lives in the waiting coroutine's frame and is the request's user_data; the
// completion callback fills it in and, unless the waiter drives progress itself, resumes
// the waiter through the loop.
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

}  // namespace commbench::ucx
