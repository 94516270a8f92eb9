// when_all(): await several tasks that run concurrently on the loop; resumes when all
// have finished, then rethrows the first error (after every task has ended, so no task
// is left running against destroyed state).
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/task.hpp"

namespace commbench {

namespace detail {

// Counts finished children and resumes the parent after the last one.
struct Latch {
  size_t remaining = 0;
  std::coroutine_handle<> parent;
};

struct LatchedChild {
  struct promise_type {
    Latch* latch = nullptr;
    LatchedChild get_return_object() noexcept {
      return {std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct Final {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        Latch* l = h.promise().latch;
        if (--l->remaining == 0) return l->parent;
        return std::noop_coroutine();
      }
      void await_resume() noexcept {}
    };
    Final final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }  // children never throw
  };
  std::coroutine_handle<promise_type> handle;
};

// Runs one task to completion, keeping its error for the parent (never throws).
template <typename T>
LatchedChild latched(Task<T>& task, std::exception_ptr& error) {
  try {
    co_await std::move(task);
  } catch (...) {
    error = std::current_exception();
  }
}

// Awaitable that starts all children and suspends the parent until the last finishes.
class WhenAllAwaiter {
 public:
  explicit WhenAllAwaiter(std::vector<LatchedChild> children) : children_(std::move(children)) {}
  ~WhenAllAwaiter() {
    for (auto& c : children_) c.handle.destroy();
  }
  bool await_ready() const noexcept { return children_.empty(); }
  void await_suspend(std::coroutine_handle<> parent) {
    latch_.remaining = children_.size() + 1;  // +1: we hold it until all are started
    latch_.parent = parent;
    for (auto& c : children_) {
      c.handle.promise().latch = &latch_;
      c.handle.resume();
    }
    if (--latch_.remaining == 0) parent.resume();
  }
  void await_resume() const noexcept {}

 private:
  std::vector<LatchedChild> children_;
  Latch latch_;
};

}  // namespace detail

// All tasks of a vector; results discarded (use the variadic form for values).
inline Task<void> when_all(std::vector<Task<void>> tasks) {
  std::vector<std::exception_ptr> errors(tasks.size());
  std::vector<detail::LatchedChild> children;
  children.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) children.push_back(detail::latched(tasks[i], errors[i]));
  co_await detail::WhenAllAwaiter(std::move(children));
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Two or more tasks of any result types; returns a tuple of their results
// (std::monostate-free: void tasks contribute nothing and their result is ignored).
template <typename... Ts>
Task<void> when_all(Task<Ts>... tasks) {
  std::vector<Task<void>> wrapped;
  wrapped.reserve(sizeof...(Ts));
  (wrapped.push_back([](Task<Ts> t) -> Task<void> { co_await std::move(t); }(std::move(tasks))),
   ...);
  co_await when_all(std::move(wrapped));
}

}  // namespace commbench
