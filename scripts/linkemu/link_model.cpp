#include "link_model.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace linkemu {

Nanos Rng::uniform(Nanos lo, Nanos hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  // The modulo bias is below 2^-40 for any jitter a link would use.
  return lo + static_cast<Nanos>(engine_() % span);
}

Nanos PortLink::serialization_ns(std::size_t bytes) {
  if (params_.rate_bps == 0) return 0;
  // Carry the remainder so that odd rates add up exactly over many frames instead of losing
  // up to a nanosecond each.
  const std::uint64_t bit_ns =
      static_cast<std::uint64_t>(bytes) * 8 * 1'000'000'000ULL + rate_remainder_;
  rate_remainder_ = bit_ns % params_.rate_bps;
  return static_cast<Nanos>(bit_ns / params_.rate_bps);
}

Decision PortLink::schedule(Nanos now, std::size_t bytes, Rng& rng) {
  Decision d;
  if (rng.chance(params_.loss_pct)) {
    d.dropped = true;  // lost on the way in: it takes no share of the wire
    return d;
  }
  if (rng.chance(params_.reorder_pct)) {
    // netem's reorder: the frame leaves now, ahead of everything held. Its bytes still keep
    // the wire busy for the frames after it, so reordering cannot raise the rate.
    d.reordered = true;
    d.due_ns = now;
    busy_until_ = std::max(busy_until_, now) + serialization_ns(bytes);
    return d;
  }
  Nanos hold = params_.delay_ns;
  if (params_.jitter_ns > 0) hold += rng.uniform(-params_.jitter_ns, params_.jitter_ns);
  Nanos ready = now + std::max<Nanos>(hold, 0);
  if (!params_.jitter_reorders) ready = std::max(ready, last_due_);
  if (params_.rate_bps != 0) {
    ready = std::max(ready, busy_until_) + serialization_ns(bytes);
    busy_until_ = ready;
  }
  last_due_ = ready;
  d.due_ns = ready;
  return d;
}

std::optional<std::uint64_t> parse_rate_bps(std::string_view text, std::string* error) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.' ||
          text[digits] == 'e' || text[digits] == 'E' || text[digits] == '+')) {
    // No suffix starts with 'e', so "1e9" can be read greedily as a number.
    ++digits;
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (digits == 0 || ec != std::errc() || end != text.data() + digits || !std::isfinite(value) ||
      value < 0) {
    *error = "malformed rate '" + std::string(text) + "' (examples: 10gbit, 100mbit, 0)";
    return std::nullopt;
  }
  std::string suffix(text.substr(digits));
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  double scale = 0;
  if (suffix.empty() || suffix == "bit") {
    scale = 1;
  } else if (suffix == "kbit") {
    scale = 1e3;
  } else if (suffix == "mbit") {
    scale = 1e6;
  } else if (suffix == "gbit") {
    scale = 1e9;
  } else if (suffix == "tbit") {
    scale = 1e12;
  } else {
    *error = "unknown rate suffix '" + std::string(text.substr(digits)) + "' in '" +
             std::string(text) + "' (use bit, kbit, mbit, gbit or tbit)";
    return std::nullopt;
  }
  const double bps = value * scale;
  if (bps >= 9e18) {  // llround's range
    *error = "rate '" + std::string(text) + "' is too large";
    return std::nullopt;
  }
  if (bps > 0 && bps < 1) {
    *error = "rate '" + std::string(text) + "' is below 1 bit/s";
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(std::llround(bps));
}

}  // namespace linkemu
