#include "harness/inject_delay.hpp"

#include <stdexcept>

namespace commbench {

uint64_t parse_inject_delay(const std::string& us) {
  if (us.empty()) return 0;
  size_t pos = 0;
  double value = -1;
  try {
    value = std::stod(us, &pos);
  } catch (const std::exception&) {
    pos = 0;  // std::stod's own message is just "stod"
  }
  // The upper bound keeps the conversion to nanoseconds in range (an hour is plenty).
  if (pos != us.size() || !(value >= 0 && value <= 3.6e9))
    throw std::invalid_argument("bad --inject-delay '" + us + "' (microseconds, e.g. 5)");
  return static_cast<uint64_t>(value * 1000);
}

}  // namespace commbench
