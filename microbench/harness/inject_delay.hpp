// --inject-delay, the testing aid of every benchmark (microbench and appbench): a fixed
// busy wait inside every measured write, so a test can prove that the regression gate
// catches a slower communication path. One parser and one wait, so the flag means the
// same thing everywhere.
#pragma once

#include <cstdint>
#include <string>

#include "harness/progress_ticks.hpp"
#include "runtime/event_loop.hpp"

namespace commbench {

// "5", "0.5" (microseconds, >= 0) -> nanoseconds; "" = 0. Throws std::invalid_argument
// with a one-line message naming the flag.
uint64_t parse_inject_delay(const std::string& us);

// Spins for `ns` without yielding: the time is spent on the writer's core, as a slower
// communication layer would spend it (a sleep would hand the core to someone else).
// The spin ticks the run's progress counter: this rank is busy with its own (slower)
// work, not waiting on a silent peer, so the stall watchdog's line comes from the rank
// that waits for it, alone (tests/reliability read_timeout_stalled_peer).
// Inline: it sits inside timed loops, where the usual ns == 0 must cost a compare, not a
// call into another translation unit.
inline void inject_delay(uint64_t ns) noexcept {
  if (ns == 0) return;
  uint64_t until = EventLoop::now_ns() + ns;
  while (EventLoop::now_ns() < until) progress::tick();
}

}  // namespace commbench
