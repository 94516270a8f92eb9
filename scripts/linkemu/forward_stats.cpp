#include "forward_stats.hpp"

#include <algorithm>
#include <utility>

namespace linkemu {
namespace {

constexpr std::pair<const char*, std::uint64_t PortCounters::*> kSummed[] = {
    {"frames_in", &PortCounters::frames_in},       {"bytes_in", &PortCounters::bytes_in},
    {"frames_out", &PortCounters::frames_out},     {"bytes_out", &PortCounters::bytes_out},
    {"dropped_loss", &PortCounters::dropped_loss}, {"dropped_limit", &PortCounters::dropped_limit},
    {"reordered", &PortCounters::reordered},       {"write_eagain", &PortCounters::write_eagain},
    {"write_errors", &PortCounters::write_errors},
};

double quantile_us(std::vector<Nanos>& v, double q) {
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return static_cast<double>(v[k]) / 1e3;
}

}  // namespace

nlohmann::json summed_counters_json(const PortCounters& c) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, member] : kSummed) out[name] = c.*member;
  return out;
}

void add_summed_counters(PortCounters& total, const PortCounters& c) {
  for (const auto& [name, member] : kSummed) total.*member += c.*member;
}

void LatenessSample::add(Nanos late_ns) {
  ++seen_;
  sum_ns_ += static_cast<double>(late_ns);
  max_ns_ = std::max(max_ns_, late_ns);
  if (values_.size() < kCapacity) {
    values_.push_back(late_ns);
    return;
  }
  // Reservoir sampling: every departure so far stays in the sample with equal chance.
  const auto slot = pick_() % seen_;
  if (slot < kCapacity) values_[slot] = late_ns;
}

nlohmann::json LatenessSample::summary_us() const {
  nlohmann::json out{{"count", seen_}};
  if (seen_ == 0) return out;
  std::vector<Nanos> copy = values_;
  out["mean"] = sum_ns_ / static_cast<double>(seen_) / 1e3;
  out["median"] = quantile_us(copy, 0.5);
  out["p99"] = quantile_us(copy, 0.99);
  out["max"] = static_cast<double>(max_ns_) / 1e3;
  return out;
}

}  // namespace linkemu
