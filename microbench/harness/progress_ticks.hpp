// The run's progress counter, watched by the stall watchdog (harness/stall_watchdog.hpp):
// every completed receive or send, raw baselines included, adds one; the timed loops read
// no clock for it. A relaxed load and store, not fetch_add: a locked add cost 17-20 ns
// here (/tmp micro-loop on this VM, against 1.7-5.7 ns for a plain add), about 0.3% of
// a 10 us round trip that ticks twice per rank. Two writers (the main thread and
// raw-tcp's blocking sender thread) may lose an increment to each other, which only
// matters if the counter then showed the value the watchdog saw last: it moved either
// way, and the watchdog only asks whether it moved.
#pragma once

#include <atomic>
#include <cstdint>

namespace commbench::progress {

inline std::atomic<std::uint64_t> ticks{0};
inline void tick() noexcept {
  ticks.store(ticks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace commbench::progress
