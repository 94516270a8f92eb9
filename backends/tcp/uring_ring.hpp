// The io_uring of one tcp:uring backend, registered with the event loop as a Poller.
//
// A coroutine awaits one socket operation (UringOp: a recv into a buffer, a sendmsg of an
// iovec) as one SQE; the ring submits every SQE prepared during a turn with one
// io_uring_submit when the loop polls it (the batch), reaps CQEs by peeking at the CQ
// (no system call) and resumes each op's coroutine through the ready queue. Idle, the loop
// arms the ring: the eventfd registered with io_uring_register_eventfd makes the loop's
// epoll return when a CQE is posted. The eventfd stays enabled while the loop spins
// (io_uring_cq_eventfd_toggle could silence it, but re-enabling it and re-checking the CQ
// races with the kernel's post without a barrier on its side: a lost wake-up is a hang,
// a stale one costs one more spin).
//
// Lifetime rule: the kernel writes into an op's buffer until the op's CQE is reaped. So a
// cancelled op (its token fired) sends IORING_OP_ASYNC_CANCEL and resumes its coroutine
// only when its own CQE arrives, and an op destroyed in flight (its frame destroyed while
// suspended) cancels and waits for that CQE synchronously before its memory goes.
#pragma once

#include <liburing.h>
#include <sys/socket.h>

#include <coroutine>
#include <cstddef>
#include <memory>
#include <string>

#include "comm/backend_catalog.hpp"
#include "runtime/event_loop.hpp"
#include "runtime/poller.hpp"

namespace commbench::tcp {

class UringRing;

// When the kernel runs a completion's task work (uring_ring.cpp says what was measured).
enum class UringTaskrun { defer, signal };
inline constexpr const char* kUringTaskrunKey = "uring_taskrun";
// "" = defer; throws std::invalid_argument naming the values otherwise.
UringTaskrun parse_uring_taskrun(const std::string& s);
// The --backend-opt key as --list-backends shows it.
SettingInfo uring_taskrun_setting();

// The one line a refused io_uring_queue_init (-err) reads: what the kernel said and, from
// /proc/sys/kernel/io_uring_disabled, whether it was configured to say it.
std::string uring_unavailable_reason(int err);

// Awaitable: one socket operation; await_resume() returns the CQE's result (bytes, 0 at
// EOF, -errno) or throws OperationCancelled/TimeoutError when its token fired.
class UringOp : public CancellableWait {
 public:
  enum class Kind { recv, sendmsg };
  UringOp(UringRing& ring, Kind kind, int fd, void* buf, size_t len, const msghdr* msg, int flags,
          CancelToken token) noexcept
      : CancellableWait(token),
        ring_(ring),
        kind_(kind),
        fd_(fd),
        flags_(flags),
        buf_(buf),
        len_(len),
        msg_(msg) {}
  UringOp(const UringOp&) = delete;
  UringOp& operator=(const UringOp&) = delete;
  ~UringOp();

  void await_suspend(std::coroutine_handle<> h);
  int await_resume();

 private:
  friend class UringRing;
  static void cancel_cb(CancelRegistration* r);
  // From the ring, with this op's CQE result.
  void complete(int res) noexcept;

  UringRing& ring_;
  Kind kind_;
  int fd_;
  int flags_;  // MSG_* flags of the recv or sendmsg
  void* buf_;
  size_t len_;
  const msghdr* msg_;
  int result_ = 0;
  bool in_flight_ = false;
};

class UringRing final : public Poller {
 public:
  // Sets up the ring and its eventfd and registers with `loop`. Throws BackendUnavailable
  // with one line naming why when the kernel refuses io_uring.
  static std::shared_ptr<UringRing> create(EventLoop& loop,
                                           UringTaskrun taskrun = UringTaskrun::defer);
  ~UringRing() override;
  UringRing(const UringRing&) = delete;
  UringRing& operator=(const UringRing&) = delete;

  UringOp recv(int fd, void* buf, size_t len, int flags, CancelToken token) {
    return UringOp(*this, UringOp::Kind::recv, fd, buf, len, nullptr, flags, token);
  }
  // `msg` (and its iovecs) must stay put until the op completes: the kernel reads it
  // when it issues the op, which may be after the submit.
  UringOp sendmsg(int fd, const msghdr* msg, int flags, CancelToken token) {
    return UringOp(*this, UringOp::Kind::sendmsg, fd, nullptr, 0, msg, flags, token);
  }
  // Cancels every request on `fd` and submits at once: call before close(fd), which alone
  // would not end them (the ring holds its own reference to the file). Their CQEs
  // (-ECANCELED) resume the waiters later, as usual.
  void cancel_fd(int fd) noexcept;

  // Poller.
  const char* name() const noexcept override { return "io_uring"; }
  bool has_work() const noexcept override { return in_flight_ > 0 || unsubmitted_ > 0; }
  bool poll() override;
  ArmResult try_arm() override;
  int wake_fd() const noexcept override { return event_fd_; }
  void on_wake() noexcept override;

  EventLoop& loop() noexcept { return loop_; }

 private:
  friend class UringOp;
  explicit UringRing(EventLoop& loop) : loop_(loop) {}
  // A free SQE (submitting what is queued when the SQ is full).
  io_uring_sqe* get_sqe();
  // Throws CommError when called from another thread than the ring's (SINGLE_ISSUER).
  void submit();
  // Reaps every CQE posted; true if there was one.
  bool reap() noexcept;
  // Cancels `op` and reaps until its CQE arrived (for an op whose frame is going away).
  void cancel_and_wait(UringOp* op) noexcept;
  void prep_cancel(uint64_t user_data, int fd, unsigned flags) noexcept;
  // True when completions wait for this thread to enter the kernel (DEFER_TASKRUN).
  bool task_work_pending() const noexcept;

  EventLoop& loop_;
  io_uring ring_{};
  bool ring_ready_ = false;
  bool deferred_ = false;    // IORING_SETUP_DEFER_TASKRUN accepted: poll() fetches CQEs
  bool registered_ = false;  // with the loop, as a poller
  bool closing_ = false;     // in the destructor: completions resume nobody
  int event_fd_ = -1;
  size_t in_flight_ = 0;    // ops whose CQE has not been reaped
  size_t unsubmitted_ = 0;  // SQEs prepared since the last submit
};

}  // namespace commbench::tcp
