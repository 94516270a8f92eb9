// Small coroutine synchronisation for the mini runtime, all on one event loop:
// Event (a flag that wakes every waiter when set) and Semaphore (bounds fetches in
// flight). Waits take a CancelToken so a --timeout or a lost peer never leaves a
// coroutine suspended forever.
#pragma once

#include <coroutine>
#include <cstddef>
#include <deque>
#include <string>

#include "runtime/cancel.hpp"
#include "runtime/event_loop.hpp"

namespace commbench::app {

// Manual-reset event: wait() suspends until set(); set() resumes every waiter.
class Event {
  struct Waiter {
    std::coroutine_handle<> handle;
    EventLoop* loop = nullptr;
    Event* event = nullptr;
    CancelState* state = nullptr;  // null when the wait cannot be cancelled
    bool cancelled = false;
    bool timed_out = false;
    CancelRegistration reg;
  };

 public:
  explicit Event(EventLoop& loop) : loop_(loop) {}
  bool is_set() const noexcept { return set_; }
  void set() {
    set_ = true;
    for (Waiter* w : waiters_) {
      if (w->state) w->state->remove(&w->reg);
      loop_.schedule(w->handle);
    }
    waiters_.clear();
  }
  void reset() noexcept { set_ = false; }

  auto wait(CancelToken token = {}) {
    struct Awaiter {
      Event& ev;
      CancelToken token;
      Waiter w;
      bool await_ready() const noexcept { return ev.set_ || token.cancelled(); }
      void await_suspend(std::coroutine_handle<> h) {
        w.handle = h;
        w.loop = &ev.loop_;
        w.event = &ev;
        ev.waiters_.push_back(&w);
        w.state = token.state();  // null for a token that cannot be cancelled
        token.watch(w.reg, &Event::on_cancel, &w);
      }
      void await_resume() {
        if (w.cancelled) CancelToken::throw_cancelled(w.timed_out, "wait for event");
        if (!ev.set_ && token.cancelled()) token.throw_cancelled("wait for event");
      }
    };
    return Awaiter{*this, token, {}};
  }

 private:
  static void on_cancel(CancelRegistration* r) {
    auto* w = static_cast<Waiter*>(r->owner);
    auto& list = w->event->waiters_;
    for (auto it = list.begin(); it != list.end(); ++it)
      if (*it == w) {
        list.erase(it);
        break;
      }
    w->cancelled = true;
    w->timed_out = w->state->by_timeout();
    w->loop->schedule(w->handle);
  }
  EventLoop& loop_;
  bool set_ = false;
  std::deque<Waiter*> waiters_;
};

// Counting semaphore with FIFO hand-over (no barging, so fetches start in request order).
class Semaphore {
 public:
  Semaphore(EventLoop& loop, size_t count) : loop_(loop), count_(count) {}
  auto acquire() {
    struct Awaiter {
      Semaphore& s;
      bool await_ready() noexcept {
        if (s.count_ == 0) return false;
        --s.count_;
        return true;
      }
      void await_suspend(std::coroutine_handle<> h) { s.waiters_.push_back(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{*this};
  }
  void release() {
    if (waiters_.empty()) {
      ++count_;
      return;
    }
    auto h = waiters_.front();  // the permit passes straight to the next waiter
    waiters_.pop_front();
    loop_.schedule(h);
  }

 private:
  EventLoop& loop_;
  size_t count_;
  std::deque<std::coroutine_handle<>> waiters_;
};

// Releases one permit when it goes out of scope.
class SemaphoreGuard {
 public:
  explicit SemaphoreGuard(Semaphore& s) : s_(s) {}
  ~SemaphoreGuard() { s_.release(); }
  SemaphoreGuard(const SemaphoreGuard&) = delete;
  SemaphoreGuard& operator=(const SemaphoreGuard&) = delete;

 private:
  Semaphore& s_;
};

}  // namespace commbench::app
