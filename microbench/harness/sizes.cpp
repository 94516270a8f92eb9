#include "harness/sizes.hpp"

#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string>

namespace commbench {

size_t parse_size_option(std::string_view option, std::string_view text) {
  try {
    return parse_size(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(option) + ": " + e.what());
  }
}

size_t parse_size(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (t.empty()) throw std::invalid_argument("empty size");
  size_t mult = 1;
  char last = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
  if (last == 'B' && t.size() > 1 && std::isalpha(static_cast<unsigned char>(t[t.size() - 2]))) {
    t.remove_suffix(1);  // "4KB", "4KiB" are accepted as 4K
    last = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
  }
  if (last == 'I' && t.size() > 1) {
    t.remove_suffix(1);
    last = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
  }
  switch (last) {
    case 'K': mult = 1ull << 10; break;
    case 'M': mult = 1ull << 20; break;
    case 'G': mult = 1ull << 30; break;
    case 'T': mult = 1ull << 40; break;
    default: break;
  }
  if (mult != 1) t.remove_suffix(1);
  unsigned long long v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty())
    throw std::invalid_argument("malformed size '" + std::string(text) +
                                "' (expected e.g. 64, 8K, 4M, 1G)");
  if (v > ~0ull / mult) throw std::invalid_argument("size '" + std::string(text) + "' too large");
  return static_cast<size_t>(v * mult);
}

std::string format_size(size_t b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return std::to_string(b >> 30) + "G";
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b >= (1ull << 10) && b % (1ull << 10) == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

std::vector<size_t> size_sweep(size_t min, size_t max, size_t factor) {
  if (factor < 2) throw std::invalid_argument("size factor must be >= 2");
  if (min > max) throw std::invalid_argument("minimum size " + format_size(min) +
                                             " is larger than maximum " + format_size(max));
  std::vector<size_t> out;
  size_t s = min;
  if (s == 0) {
    out.push_back(0);
    s = 1;
  }
  for (; s <= max; s *= factor) {
    out.push_back(s);
    if (s > max / factor) break;
  }
  if (out.back() != max && min != max) out.push_back(max);
  return out;
}

}  // namespace commbench
