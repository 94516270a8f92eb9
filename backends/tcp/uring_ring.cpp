#include "tcp/uring_ring.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "comm/errors.hpp"

namespace commbench::tcp {

namespace {
// SQ entries: a turn rarely prepares more than a few (one read and one write per busy
// comm); a full SQ is submitted early, so this bounds a batch, not the ops in flight.
constexpr unsigned kEntries = 256;
constexpr unsigned kReapBatch = 64;
}  // namespace

UringTaskrun parse_uring_taskrun(const std::string& s) {
  if (s.empty() || s == "defer") return UringTaskrun::defer;
  if (s == "signal") return UringTaskrun::signal;
  throw std::invalid_argument(std::string(kUringTaskrunKey) +
                              " must be one of defer, signal (got '" + s + "')");
}

SettingInfo uring_taskrun_setting() {
  return {kUringTaskrunKey,
          {"defer", "signal"},
          "defer",
          "tcp:uring's completion task work: defer (IORING_SETUP_DEFER_TASKRUN: run when "
          "the loop polls the ring) or signal (the kernel interrupts the thread per "
          "completion); kernels before 6.1 always signal"};
}

std::string uring_unavailable_reason(int err) {
  std::string why =
      std::string("tcp:uring unavailable: io_uring_queue_init: ") + std::strerror(err);
  std::ifstream f("/proc/sys/kernel/io_uring_disabled");
  int disabled = 0;
  if (f >> disabled && disabled != 0)
    why += " (kernel.io_uring_disabled = " + std::to_string(disabled) + ")";
  else if (err == ENOSYS)
    why += " (this kernel has no io_uring)";
  else if (err == EPERM)
    why += " (a seccomp filter or container policy forbids io_uring)";
  return why;
}

// --- UringOp -------------------------------------------------------------------------

UringOp::~UringOp() {
  if (in_flight_) ring_.cancel_and_wait(this);
}

void UringOp::await_suspend(std::coroutine_handle<> h) {
  io_uring_sqe* sqe = ring_.get_sqe();
  if (kind_ == Kind::recv)
    io_uring_prep_recv(sqe, fd_, buf_, len_, flags_);
  else
    io_uring_prep_sendmsg(sqe, fd_, msg_, static_cast<unsigned>(flags_));
  io_uring_sqe_set_data(sqe, this);
  handle_ = h;
  in_flight_ = true;
  ++ring_.in_flight_;
  ++ring_.unsubmitted_;  // submitted with the turn's batch in poll()
  token_.watch(reg_, &UringOp::cancel_cb, this);
}

void UringOp::cancel_cb(CancelRegistration* r) {
  auto* self = static_cast<UringOp*>(r->owner);
  self->cancelled_ = true;
  self->timed_out_ = self->token_.state()->by_timeout();
  // Not resumed here: the kernel may still write into the buffer until the op's own CQE
  // (-ECANCELED, or its result if it won the race) is reaped; complete() resumes it.
  if (self->in_flight_) self->ring_.prep_cancel(reinterpret_cast<uintptr_t>(self), -1, 0);
}

void UringOp::complete(int res) noexcept {
  in_flight_ = false;
  --ring_.in_flight_;
  result_ = res;
  if (!cancelled_ && token_.can_be_cancelled()) token_.state()->remove(&reg_);
  if (handle_ && !ring_.closing_) ring_.loop_.schedule(handle_);
}

int UringOp::await_resume() {
  throw_if_cancelled(kind_ == Kind::recv ? "receive" : "send");
  return result_;
}

// --- UringRing -----------------------------------------------------------------------

std::shared_ptr<UringRing> UringRing::create(EventLoop& loop, UringTaskrun taskrun) {
  std::shared_ptr<UringRing> r(new UringRing(loop));
  // Deferred task work (6.1+): a completion's task work waits until this thread enters
  // the kernel, flagged by IORING_SQ_TASKRUN, which a spinning poll() sees in shared
  // memory and answers with io_uring_get_events, and which also signals the eventfd of
  // an armed loop. Without it (`signal`) the kernel interrupts the spinning thread
  // (TWA_SIGNAL) to post each CQE, an inter-processor kick that costs a VM exit. Measured
  // here (kernel 6.18 VM, 2 cores, loaded): ping-pong 1 B-4 KiB, median one-way latency
  // geomean over the sizes, tcp:uring / tcp:epoll 1.16 with `defer` vs 1.51 with `signal`
  // (pingpong --backend tcp:epoll,tcp:uring -e 4K --backend-opt uring_taskrun=signal).
  io_uring_params p{};
  if (taskrun == UringTaskrun::defer)
    p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  int rc = io_uring_queue_init_params(kEntries, &r->ring_, &p);
  if (rc == -EINVAL && p.flags != 0) {  // a kernel before 6.1: the interrupting default
    p = io_uring_params{};
    rc = io_uring_queue_init_params(kEntries, &r->ring_, &p);
  }
  r->deferred_ = rc == 0 && (p.flags & IORING_SETUP_DEFER_TASKRUN);
  if (rc < 0) throw BackendUnavailable(uring_unavailable_reason(-rc));
  r->ring_ready_ = true;
  r->event_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (r->event_fd_ < 0) throw CommError(std::string("eventfd: ") + std::strerror(errno));
  rc = io_uring_register_eventfd(&r->ring_, r->event_fd_);
  if (rc < 0)
    throw BackendUnavailable(std::string("tcp:uring unavailable: io_uring_register_eventfd: ") +
                             std::strerror(-rc));
  loop.add_poller(r.get());
  r->registered_ = true;
  return r;
}

UringRing::~UringRing() {
  if (registered_) loop_.remove_poller(this);
  if (ring_ready_) {
    // Ops still in flight belong to frames that will never run again (their comms are
    // gone): cancel them all and wait for their CQEs, so the kernel writes into no buffer
    // after this, and resume nobody.
    closing_ = true;
    if (in_flight_ > 0) {
      prep_cancel(0, -1, IORING_ASYNC_CANCEL_ANY);
      while (in_flight_ > 0) {
        int rc = io_uring_submit_and_wait(&ring_, 1);
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) break;
        unsubmitted_ = io_uring_sq_ready(&ring_);
        reap();
      }
    }
    io_uring_queue_exit(&ring_);
  }
  if (event_fd_ >= 0) ::close(event_fd_);
}

io_uring_sqe* UringRing::get_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe) return sqe;
  // SQ full: submit the batch so far (reaping first frees CQ space if the kernel pushed
  // back with EBUSY), then take the freed slot.
  for (int attempt = 0; attempt < 3 && !sqe; ++attempt) {
    reap();
    submit();
    sqe = io_uring_get_sqe(&ring_);
  }
  if (!sqe) throw CommError("io_uring: submission queue stays full");
  return sqe;
}

void UringRing::submit() {
  int rc = io_uring_submit(&ring_);
  unsubmitted_ = io_uring_sq_ready(&ring_);
  // EINTR, EAGAIN, EBUSY: what was not taken is retried on the next poll. EEXIST: the
  // ring is IORING_SETUP_SINGLE_ISSUER and this is not the thread that created the
  // backend, which must be the thread running its loop; fail loudly rather than hang.
  if (rc == -EEXIST)
    throw CommError("tcp:uring: ring used from a thread other than the one that created it");
}

bool UringRing::reap() noexcept {
  bool any = false;
  io_uring_cqe* cqes[kReapBatch];
  for (;;) {
    unsigned n = io_uring_peek_batch_cqe(&ring_, cqes, kReapBatch);
    for (unsigned i = 0; i < n; ++i) {
      uint64_t data = io_uring_cqe_get_data64(cqes[i]);
      // 0 marks a cancel request's own CQE: nobody waits for it.
      if (data != 0)
        reinterpret_cast<UringOp*>(static_cast<uintptr_t>(data))->complete(cqes[i]->res);
    }
    io_uring_cq_advance(&ring_, n);
    any = any || n > 0;
    if (n < kReapBatch) return any;
  }
}

void UringRing::prep_cancel(uint64_t user_data, int fd, unsigned flags) noexcept {
  io_uring_sqe* sqe = nullptr;
  try {
    sqe = get_sqe();
  } catch (const CommError&) {
    return;  // the op then ends when its socket does (close/shutdown complete it)
  }
  if (fd >= 0)
    io_uring_prep_cancel_fd(sqe, fd, flags);
  else
    io_uring_prep_cancel64(sqe, user_data, static_cast<int>(flags));
  io_uring_sqe_set_data64(sqe, 0);
  ++unsubmitted_;
}

void UringRing::cancel_fd(int fd) noexcept {
  prep_cancel(0, fd, IORING_ASYNC_CANCEL_ALL);
  try {
    submit();  // now, while `fd` still names the socket
  } catch (const CommError&) {
    // The wrong thread: nothing can be submitted; the next poll() reports it.
  }
}

void UringRing::cancel_and_wait(UringOp* op) noexcept {
  op->handle_ = nullptr;  // its frame is being destroyed: resume nobody
  if (!op->cancelled_) prep_cancel(reinterpret_cast<uintptr_t>(op), -1, 0);
  while (op->in_flight_) {
    int rc = io_uring_submit_and_wait(&ring_, 1);
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) return;
    unsubmitted_ = io_uring_sq_ready(&ring_);
    reap();
  }
}

bool UringRing::task_work_pending() const noexcept {
  return deferred_ && (IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_TASKRUN);
}

bool UringRing::poll() {
  if (unsubmitted_ > 0) submit();
  if (reap()) return true;
  if (!task_work_pending()) return false;
  io_uring_get_events(&ring_);
  return reap();
}

ArmResult UringRing::try_arm() {
  if (unsubmitted_ > 0) submit();
  // The eventfd is always enabled (see the file comment): a CQE posted after this check
  // signals it, and the loop's epoll returns.
  return io_uring_cq_ready(&ring_) > 0 || task_work_pending() ? ArmResult::busy : ArmResult::armed;
}

void UringRing::on_wake() noexcept {
  uint64_t count;
  // Drains the counter; EAGAIN (already drained) is fine.
  [[maybe_unused]] ssize_t n = ::read(event_fd_, &count, sizeof count);
}

}  // namespace commbench::tcp
