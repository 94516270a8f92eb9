// spawn(): run a Task<void> detached on the loop. Its frame frees itself when it ends;
// an exception that escapes it goes to the loop's error handler instead of vanishing.
#pragma once

#include <coroutine>
#include <exception>

#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"

namespace commbench {

namespace detail {
struct Detached {
  struct promise_type {
    Detached get_return_object() noexcept {
      return {std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }  // run_detached catches all
  };
  std::coroutine_handle<promise_type> handle;
};

inline Detached run_detached(EventLoop& loop, Task<void> task) {
  try {
    co_await std::move(task);
  } catch (...) {
    loop.report_error(std::current_exception());
  }
  loop.detached_finished();
}
}  // namespace detail

// Starts `task` on the next turn of `loop`; returns at once.
inline void spawn(EventLoop& loop, Task<void> task) {
  auto d = detail::run_detached(loop, std::move(task));
  loop.detached_started();
  loop.schedule(d.handle);
}

}  // namespace commbench
