// A Comm that wraps another and injects the faults of a FaultPlan (see fault_plan.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/comm_decorator.hpp"
#include "comm/frame_header.hpp"
#include "fault/fault_plan.hpp"

namespace commbench::fault {

class FaultComm final : public CommDecorator {
 public:
  FaultComm(EventLoop& loop, std::unique_ptr<Comm> inner, std::shared_ptr<FaultPlan> plan,
            const CommLimits& limits, Side side);

  Task<void> write(const Message& msg, CancelToken token = {}) override;
  Task<void> read(Message& into, CancelToken token = {}) override;
  // Addresses say the fault layer is there; the rest forwards (CommDecorator).
  std::string local_address() const override { return "fault+" + inner_->local_address(); }
  std::string peer_address() const override { return "fault+" + inner_->peer_address(); }

 private:
  Task<void> write_cut(const Message& wire);
  // The write itself, which write() starts within the call.
  Task<void> write_message(const Message& msg, CancelToken token);
  // Whether the plan's per-comm faults apply to this end.
  bool faulty() const noexcept {
    return plan_->comm_side == Side::both || plan_->comm_side == side_;
  }

  EventLoop& loop_;
  std::shared_ptr<FaultPlan> plan_;
  CommLimits limits_;
  Side side_;
  int writes_ = 0;
  std::vector<FrameInfo> frames_in_;
};

}  // namespace commbench::fault
