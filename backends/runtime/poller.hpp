// A progress engine registered with the event loop (Seastar's "poller" idea).
//
// The loop calls poll() every turn while has_work() says so. Before the loop blocks it
// asks every registered poller to arm: a poller that can be woken through a file
// descriptor (UCX: ucp_worker_arm + the worker's event fd) arms and returns `armed`;
// one with events already pending returns `busy` and the loop polls again instead of
// sleeping; one that cannot sleep on an fd (MPI) returns `cannot_arm` while it has work,
// and the loop then naps with a bounded back-off instead of blocking indefinitely.
#pragma once

namespace commbench {

enum class ArmResult { armed, busy, cannot_arm };

class Poller {
 public:
  virtual ~Poller() = default;

  virtual const char* name() const noexcept = 0;
  // True while the poller has outstanding work and must be polled each turn.
  virtual bool has_work() const noexcept = 0;
  // Makes progress; true if it completed something (resumed a waiter, took an event).
  virtual bool poll() = 0;
  // Prepares to sleep; see the file comment. Pollers without work are not asked.
  virtual ArmResult try_arm() { return ArmResult::cannot_arm; }
  // Undoes a successful try_arm() after the loop woke up.
  virtual void disarm() {}
  // The descriptor that becomes readable when an armed poller has events, or -1.
  virtual int wake_fd() const noexcept { return -1; }
  // True while the engine wants the loop to arm and sleep as soon as a turn finds
  // nothing to do, without the idle spin: purely event-driven progress (UCX-Py's blocking
  // mode), whose cost is exactly the sleep and wake-up the spin would hide.
  virtual bool arm_at_once() const noexcept { return false; }
  // Called when the loop's epoll reported this poller's wake fd (it then runs next turn).
  virtual void on_wake() noexcept {}
};

}  // namespace commbench
