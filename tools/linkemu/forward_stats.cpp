#include "forward_stats.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace linkemu {
namespace {

double quantile_us(std::vector<Nanos>& v, double q) {
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return static_cast<double>(v[k]) / 1e3;
}

}  // namespace

void LatenessSample::add(Nanos late_ns) {
  ++seen_;
  sum_ns_ += static_cast<double>(late_ns);
  max_ns_ = std::max(max_ns_, late_ns);
  if (values_.size() < capacity_) {
    values_.push_back(late_ns);
    return;
  }
  // Reservoir sampling: every departure so far stays in the sample with equal chance.
  const auto slot = pick_() % seen_;
  if (slot < capacity_) values_[slot] = late_ns;
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

bool write_json_file(const std::string& path, const nlohmann::json& doc) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return false;
  const std::string text = doc.dump(2) + "\n";
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    errno = err;
    return false;
  }
  return true;
}

}  // namespace linkemu
