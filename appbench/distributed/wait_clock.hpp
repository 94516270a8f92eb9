// How long a worker sat idle while a task it had been given waited only for data from a
// peer: the part of communication that the run could not hide behind compute (wait_s in
// the CSV). The worker reports two facts as they change -- its executor is idle, and how
// many of its tasks are held back by missing inputs -- and the clock runs while both
// hold.
#pragma once

#include <cstdint>

namespace commbench::app {

class WaitClock {
 public:
  void set_idle(bool idle, uint64_t now_ns) { update(idle, blocked_, now_ns); }
  void block(uint64_t now_ns) { update(idle_, blocked_ + 1, now_ns); }
  void unblock(uint64_t now_ns) { update(idle_, blocked_ > 0 ? blocked_ - 1 : 0, now_ns); }

  // The waited time since the last take (a wait in progress counts up to now).
  uint64_t take(uint64_t now_ns) {
    if (waiting()) {
      total_ += now_ns - since_;
      since_ = now_ns;
    }
    uint64_t t = total_;
    total_ = 0;
    return t;
  }

 private:
  bool waiting() const { return idle_ && blocked_ > 0; }
  void update(bool idle, uint64_t blocked, uint64_t now_ns) {
    bool was = waiting();
    idle_ = idle;
    blocked_ = blocked;
    bool is = waiting();
    if (!was && is) since_ = now_ns;
    if (was && !is) total_ += now_ns - since_;
  }

  bool idle_ = false;
  uint64_t blocked_ = 0;  // tasks received whose inputs are still being fetched
  uint64_t since_ = 0;
  uint64_t total_ = 0;
};

}  // namespace commbench::app
