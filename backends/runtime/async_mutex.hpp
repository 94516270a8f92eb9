// FIFO mutex for coroutines on one loop: concurrent writes (or reads) on one comm take
// turns, whole messages at a time. Uncontended, lock() is a flag test.
#pragma once

#include <coroutine>
#include <deque>

#include "runtime/event_loop.hpp"

namespace commbench {

class AsyncMutex {
 public:
  explicit AsyncMutex(EventLoop& loop) : loop_(loop) {}

  class Guard {
   public:
    explicit Guard(AsyncMutex* m) noexcept : m_(m) {}
    Guard(Guard&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
    Guard(const Guard&) = delete;
    ~Guard() {
      if (m_) m_->unlock();
    }

   private:
    AsyncMutex* m_;
  };

  // co_await mutex.lock() -> Guard that unlocks when destroyed.
  auto lock() noexcept {
    struct Awaiter {
      AsyncMutex& m;
      bool await_ready() noexcept {
        if (m.locked_) return false;
        m.locked_ = true;
        return true;
      }
      void await_suspend(std::coroutine_handle<> h) { m.waiters_.push_back(h); }
      Guard await_resume() noexcept { return Guard(&m); }  // ownership was handed over
    };
    return Awaiter{*this};
  }

  bool locked() const noexcept { return locked_; }

 private:
  void unlock() {
    if (waiters_.empty()) {
      locked_ = false;
      return;
    }
    auto h = waiters_.front();  // stays locked: ownership passes to the next waiter
    waiters_.pop_front();
    loop_.schedule(h);
  }
  EventLoop& loop_;
  bool locked_ = false;
  std::deque<std::coroutine_handle<>> waiters_;
};

}  // namespace commbench
