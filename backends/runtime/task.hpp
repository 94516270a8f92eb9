// Lazy, move-only coroutine task with symmetric transfer.
//
// A Task does nothing until it is awaited (or started by the event loop, or by start()).
// When it finishes it transfers control straight back to its awaiter (symmetric
// transfer), so a chain of awaits that complete at once never grows the native stack.
// Exceptions thrown inside the task are stored and rethrown in the awaiter.
//
// Two forms exist for operations that usually finish within their call (a comm's write
// whose bytes the library takes at once, comm.hpp): an empty Task<void> (no frame) is a
// finished one, and awaiting it continues at once; start() runs a task now, in the
// caller, up to its first suspension, so that what it does first happens in call order.
// A frame costs some 100 instructions to make, run and free (results/layer-2026-11-30):
// more than a small message's whole send.
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "runtime/frame_allocator.hpp"

namespace commbench {

template <typename T = void>
class Task;

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr error;
  bool started = false;  // start() ran it: awaiting must not resume it again

  std::suspend_always initial_suspend() noexcept { return {}; }

  static void* operator new(size_t n) { return FrameAllocator::allocate(n); }
  static void operator delete(void* p, size_t n) noexcept { FrameAllocator::deallocate(p, n); }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

template <typename T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <typename U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() {
    if (error) std::rethrow_exception(error);
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace detail

template <typename T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() noexcept = default;
  explicit Task(Handle h) noexcept : handle_(h) {}
  Task(Task&& o) noexcept : handle_(std::exchange(o.handle_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      destroy();
      handle_ = std::exchange(o.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { destroy(); }

  // False for an empty Task: no frame (for Task<void>, a finished one).
  bool valid() const noexcept { return static_cast<bool>(handle_); }
  bool done() const noexcept { return !handle_ || handle_.done(); }
  bool started() const noexcept { return handle_ && handle_.promise().started; }

  // Runs the task now, in the caller, until it first suspends or ends; awaiting it then
  // waits for the rest (or, if it ended, returns its result or rethrows at once).
  void start() {
    if (!handle_ || handle_.promise().started) return;
    handle_.promise().started = true;
    handle_.resume();
  }

  // Awaiting starts the task (unless start() did); its completion resumes the awaiter
  // directly.
  auto operator co_await() && noexcept {
    struct Awaiter {
      Handle h;
      bool await_ready() const noexcept { return !h || h.done(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
        h.promise().continuation = awaiter;
        if (h.promise().started) return std::noop_coroutine();  // it resumes us when it ends
        return h;
      }
      T await_resume() {
        if constexpr (std::is_void_v<T>) {
          if (!h) return;  // an empty Task<void>: finished
        }
        return h.promise().take();
      }
    };
    return Awaiter{handle_};
  }

  // For drivers (the event loop, when_all): raw access to the frame.
  Handle handle() const noexcept { return handle_; }
  Handle release() noexcept { return std::exchange(handle_, {}); }
  // Rethrows the stored exception or returns the value of a finished task.
  T result() {
    if constexpr (std::is_void_v<T>) {
      if (!handle_) return;
    }
    return handle_.promise().take();
  }

 private:
  void destroy() noexcept {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  Handle handle_;
};

namespace detail {
template <typename T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>{std::coroutine_handle<Promise<T>>::from_promise(*this)};
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>{std::coroutine_handle<Promise<void>>::from_promise(*this)};
}
}  // namespace detail

}  // namespace commbench
