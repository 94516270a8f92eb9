// The link model of linkemu: when a frame leaves an output port, or whether it is lost.
// Pure logic on numbers (no sockets, no clock), so the tests drive it with made-up times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace linkemu {

// Nanoseconds on CLOCK_MONOTONIC; signed so that differences need no care.
using Nanos = std::int64_t;

struct LinkParams {
  Nanos delay_ns = 0;          // one-way delay added to every frame
  Nanos jitter_ns = 0;         // uniform in [-jitter, +jitter] on top of the delay, floor 0
  double reorder_pct = 0;      // chance that a frame skips the delay queue (netem's reorder)
  double loss_pct = 0;         // chance that a frame is dropped
  std::uint64_t rate_bps = 0;  // serialization rate of the output port; 0 = unlimited
  // netem lets jitter reorder frames; by default we do not (TCP reads reordering as loss and
  // the benchmarks would measure its recovery, not the link), unless asked.
  bool jitter_reorders = false;
};

// Reproducible randomness: the 64-bit Mersenne Twister's sequence is fixed by the standard,
// and we map it to numbers ourselves (the std distributions differ between libraries).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  bool chance(double pct) { return pct > 0 && unit() * 100.0 < pct; }
  Nanos uniform(Nanos lo, Nanos hi);  // inclusive

 private:
  std::mt19937_64 engine_;
};

struct Decision {
  bool dropped = false;
  bool reordered = false;  // left at once, ahead of frames still held
  Nanos due_ns = 0;        // when the frame leaves the output port
};

// The state of one output port (one link, in the switch's terms): how long its wire is busy
// and when its last in-order frame leaves.
class PortLink {
 public:
  explicit PortLink(const LinkParams& params) : params_(params) {}

  // A frame of `bytes` reaching this port at `now`: its fate and departure time.
  Decision schedule(Nanos now, std::size_t bytes, Rng& rng);

 private:
  Nanos serialization_ns(std::size_t bytes);

  LinkParams params_;
  Nanos busy_until_ = 0;              // the wire is sending earlier frames until then
  Nanos last_due_ = 0;                // departure of the last in-order frame (FIFO under jitter)
  std::uint64_t rate_remainder_ = 0;  // sub-nanosecond remainder carried between frames
};

// "10gbit", "100mbit", "1500kbit", "1e9", "0": bits per second (SI prefixes, as tc's);
// nullopt when malformed, with the reason in *error.
std::optional<std::uint64_t> parse_rate_bps(std::string_view text, std::string* error);

}  // namespace linkemu
