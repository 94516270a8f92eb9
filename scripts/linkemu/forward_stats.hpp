// What linkemu counts while it forwards, for the JSON it writes on exit and on SIGUSR1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "link_model.hpp"

namespace linkemu {

struct PortCounters {
  std::uint64_t frames_in = 0;  // read from this port's tap
  std::uint64_t bytes_in = 0;
  std::uint64_t frames_out = 0;  // written to this port's tap
  std::uint64_t bytes_out = 0;
  std::uint64_t dropped_loss = 0;   // --loss-pct, on the way out of this port
  std::uint64_t dropped_limit = 0;  // the port already held --limit frames
  std::uint64_t reordered = 0;      // left at once by --reorder-pct
  std::uint64_t write_eagain = 0;   // the tap refused a write for now; held and retried
  std::uint64_t write_errors = 0;   // the tap refused it for good (interface down); dropped
  std::uint64_t max_held = 0;       // most frames waiting for this port at once
};

// The counters that add up across ports (all but max_held), by their names in the stats.
nlohmann::json summed_counters_json(const PortCounters& c);
void add_summed_counters(PortCounters& total, const PortCounters& c);

// Lateness of departures (actual write time minus scheduled departure): the emulator's own
// forwarding overhead. Keeps a uniform sample of at most kCapacity values so that memory
// stays bounded on long runs; its own generator leaves the link's seeded sequence alone.
class LatenessSample {
 public:
  static constexpr std::size_t kCapacity = 1 << 20;
  void add(Nanos late_ns);
  nlohmann::json summary_us() const;  // count, mean, median, p99, max in microseconds

 private:
  std::uint64_t seen_ = 0;
  double sum_ns_ = 0;
  Nanos max_ns_ = 0;
  std::vector<Nanos> values_;
  std::mt19937_64 pick_{0x11e5a3};
};

}  // namespace linkemu
