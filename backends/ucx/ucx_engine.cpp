#include "ucx/ucx_engine.hpp"

#include "ucx/ucx_worker.hpp"

namespace commbench::ucx {

namespace {
// The control worker with only open connections to watch progresses once every this many
// turns (handshakes waiting: every turn).
constexpr unsigned kControlPollEvery = 1024;
}  // namespace

const char* WorkerEngine::name() const noexcept {
  switch (w_.policy_) {
    case Progress::event:
      return "ucx-event";
    case Progress::control:
      return "ucx-control";
    case Progress::thread:
    case Progress::thread_blocking:
      return "ucx-thread-housekeeping";
    default:
      return "ucx-polling";
  }
}

bool WorkerEngine::has_work() const noexcept {
  if (w_.thread_) return !w_.closing_.empty() || !w_.failed_.empty();
  switch (w_.policy_) {
    case Progress::event:
      return w_.woken_;
    case Progress::control:
      return w_.woken_ || w_.busy();
    default:
      return w_.busy();
  }
}

bool WorkerEngine::poll() {
  if (w_.thread_) {
    // The progress thread progresses; the loop's part is what the callbacks deferred.
    size_t before = w_.closing_.size();
    w_.housekeeping();
    return w_.closing_.size() != before;
  }
  if (w_.policy_ == Progress::control) {
    // Handshakes waiting: every turn. Only open connections to watch: now and then.
    if (!w_.woken_ && w_.waiting_ == 0 && ++w_.ticks_ < kControlPollEvery) return false;
    w_.ticks_ = 0;
    w_.armed_ = false;
  }
  unsigned n = w_.progress();
  if (n == 0) w_.woken_ = false;
  return n != 0;
}

ArmResult WorkerEngine::try_arm() {
  if (w_.policy_ == Progress::polling || w_.thread_) return ArmResult::cannot_arm;
  if (w_.policy_ == Progress::control && w_.armed_) return ArmResult::armed;
  // Drain first: ucp_worker_arm refuses while events are pending, and completions
  // found here have resumed coroutines the loop must run before it may sleep.
  if (w_.progress() != 0) {
    w_.woken_ = true;
    return ArmResult::busy;
  }
  ucs_status_t s = ucp_worker_arm(w_.worker_);
  if (s == UCS_OK) {
    w_.armed_ = true;
    return ArmResult::armed;
  }
  w_.woken_ = true;
  return s == UCS_ERR_BUSY ? ArmResult::busy : ArmResult::cannot_arm;
}

void WorkerEngine::on_wake() noexcept {
  w_.woken_ = true;
  w_.armed_ = false;
}

int WorkerEngine::wake_fd() const noexcept {
  return w_.thread_ ? -1 : w_.efd_;
}

bool WorkerEngine::arm_at_once() const noexcept {
  // Only while a coroutine waits on this worker: an idle event backend must not
  // change how the loop treats the others (benchmarks interleave policies).
  return w_.policy_ == Progress::event && w_.waiting_ > 0;
}

}  // namespace commbench::ucx
