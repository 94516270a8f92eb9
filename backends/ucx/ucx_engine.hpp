// A worker as the event loop sees it: the Poller that progresses it under the polling,
// event and control policies, and does the loop's share of housekeeping under the thread
// policies (the cooperative policy has none: its waiters progress the worker themselves).
// Which turns it progresses on, and whether the loop may arm and sleep, is the policy
// (ucx_progress.hpp).
#pragma once

#include "runtime/poller.hpp"

namespace commbench::ucx {

class Worker;

class WorkerEngine final : public Poller {
 public:
  explicit WorkerEngine(Worker& w) noexcept : w_(w) {}
  const char* name() const noexcept override;
  bool has_work() const noexcept override;
  bool poll() override;
  ArmResult try_arm() override;
  void on_wake() noexcept override;
  int wake_fd() const noexcept override;
  bool arm_at_once() const noexcept override;

 private:
  Worker& w_;
};

}  // namespace commbench::ucx
