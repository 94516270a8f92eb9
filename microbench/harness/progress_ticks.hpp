// The run's progress counter, watched by the stall watchdog (harness/stall_watchdog.hpp):
// every completed receive or send, raw baselines included, adds one. A relaxed atomic
// increment (a few ns; the timed loops read no clock for it), from the main thread and
// from raw-tcp's sender thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace commbench::progress {

inline std::atomic<std::uint64_t> ticks{0};
inline void tick() noexcept {
  ticks.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace commbench::progress
