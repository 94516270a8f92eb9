// Order statistics over samples (the samples are sorted in place).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace commbench {

struct Summary {
  double p50 = 0, avg = 0, min = 0, max = 0, p90 = 0, p99 = 0, p999 = 0;
  size_t n = 0;
};

template <typename T>
Summary summarize(std::vector<T>& v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    double pos = q * static_cast<double>(v.size() - 1);
    size_t lo = static_cast<size_t>(pos);
    size_t hi = std::min(lo + 1, v.size() - 1);
    double frac = pos - static_cast<double>(lo);
    return static_cast<double>(v[lo]) * (1 - frac) + static_cast<double>(v[hi]) * frac;
  };
  s.p50 = at(0.5);
  s.p90 = at(0.90);
  s.p99 = at(0.99);
  s.p999 = at(0.999);
  s.min = static_cast<double>(v.front());
  s.max = static_cast<double>(v.back());
  s.avg = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

}  // namespace commbench
