// with_timeout(): give an operation a deadline. The operation receives a CancelToken;
// when the deadline passes every wait that holds the token is cancelled and throws
// TimeoutError, so the operation unwinds properly instead of being abandoned.
#pragma once

#include <chrono>
#include <type_traits>
#include <utility>

#include "runtime/cancel.hpp"
#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"

namespace commbench {

// `make` is called with a CancelToken and returns the Task to run under the deadline.
template <typename Make>
auto with_timeout(EventLoop& loop, std::chrono::nanoseconds timeout, Make make)
    -> std::invoke_result_t<Make, CancelToken> {
  CancelSource source;
  TimerNode timer;
  timer.owner = &source;
  timer.fire = [](TimerNode* n) { static_cast<CancelSource*>(n->owner)->cancel(true); };
  loop.add_timer(&timer, EventLoop::now_ns() + static_cast<uint64_t>(timeout.count()));
  struct Disarm {
    EventLoop& loop;
    TimerNode& timer;
    ~Disarm() { loop.cancel_timer(&timer); }
  } disarm{loop, timer};
  co_return co_await make(source.token());
}

}  // namespace commbench
