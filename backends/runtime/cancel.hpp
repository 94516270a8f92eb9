// Cancellation of suspended operations.
//
// A CancelSource owns the state; CancelTokens are plain pointers to it, so passing one
// into every read/write costs nothing (no reference counting on the hot path). The
// contract is that the source outlives every operation given its token: with_timeout()
// keeps its source in its own frame and awaits the inner task to completion.
//
// A primitive wait (fd readiness, timer, library request) that accepts a token links a
// CancelRegistration into the state while it is suspended. cancel() unlinks each one and
// calls it: the wait removes itself from whatever it waits on, marks itself cancelled and
// reschedules its coroutine, which then throws from await_resume.
#pragma once

#include <stdexcept>
#include <string>

namespace commbench {

// The operation was cancelled before it completed.
class OperationCancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The operation was cancelled because its deadline passed.
class TimeoutError : public OperationCancelled {
 public:
  using OperationCancelled::OperationCancelled;
};

struct CancelRegistration {
  CancelRegistration* prev = nullptr;
  CancelRegistration* next = nullptr;
  void (*on_cancel)(CancelRegistration*) = nullptr;
  void* owner = nullptr;  // the wait this registration belongs to
};

class CancelState {
 public:
  bool cancelled() const noexcept { return cancelled_; }
  bool by_timeout() const noexcept { return timeout_; }

  void add(CancelRegistration* r) noexcept {
    r->prev = nullptr;
    r->next = head_;
    if (head_) head_->prev = r;
    head_ = r;
  }
  void remove(CancelRegistration* r) noexcept {
    if (r->prev)
      r->prev->next = r->next;
    else if (head_ == r)
      head_ = r->next;
    if (r->next) r->next->prev = r->prev;
    r->prev = r->next = nullptr;
  }
  void cancel(bool timeout) {
    if (cancelled_) return;
    cancelled_ = true;
    timeout_ = timeout;
    while (head_) {
      CancelRegistration* r = head_;
      remove(r);
      r->on_cancel(r);
    }
  }

 private:
  CancelRegistration* head_ = nullptr;
  bool cancelled_ = false;
  bool timeout_ = false;
};

class CancelToken {
 public:
  CancelToken() noexcept = default;
  explicit CancelToken(CancelState* s) noexcept : state_(s) {}

  bool can_be_cancelled() const noexcept { return state_ != nullptr; }
  bool cancelled() const noexcept { return state_ && state_->cancelled(); }
  CancelState* state() const noexcept { return state_; }

  // Calls on_cancel(&reg) if this token is cancelled while `reg` is registered (nothing for
  // a token that cannot be). The wait owns `reg`, `owner` is its context; a wait that ends
  // first removes `reg` from state().
  void watch(CancelRegistration& reg, void (*on_cancel)(CancelRegistration*),
             void* owner) const noexcept {
    if (!state_) return;
    reg.on_cancel = on_cancel;
    reg.owner = owner;
    state_->add(&reg);
  }

  // Throws the error that matches why the token was cancelled.
  [[noreturn]] void throw_cancelled(const std::string& what) const {
    throw_cancelled(state_ && state_->by_timeout(), what);
  }
  // For waits resumed after their source may be gone: they record why at cancel time.
  [[noreturn]] static void throw_cancelled(bool timeout, const std::string& what) {
    if (timeout) throw TimeoutError(what + ": timed out");
    throw OperationCancelled(what + ": cancelled");
  }
  // Takes the literal, not a std::string: it runs on every read and write, and building
  // the string there cost every message a copy that only a cancelled one needs.
  void throw_if_cancelled(const char* what) const {
    if (cancelled()) [[unlikely]]
      throw_cancelled(what);
  }

 private:
  CancelState* state_ = nullptr;
};

class CancelSource {
 public:
  CancelSource() = default;
  CancelSource(const CancelSource&) = delete;
  CancelSource& operator=(const CancelSource&) = delete;

  CancelToken token() noexcept { return CancelToken(&state_); }
  void cancel(bool timeout = false) { state_.cancel(timeout); }
  bool cancelled() const noexcept { return state_.cancelled(); }

 private:
  CancelState state_;
};

}  // namespace commbench
