#include "harness/numeric_range.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace commbench {

namespace {

// The ranges given so far, by option. Options live as long as their App, which lives
// for the whole program; a map beside them keeps CLI11's Validator free of our data.
std::map<const CLI::Option*, NumericRange>& ranges() {
  static std::map<const CLI::Option*, NumericRange> table;
  return table;
}

std::string number(double v) {
  char buf[32];
  if (std::fabs(v) < 9e15 && v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string describe(const NumericRange& r) {
  if (!r.max) return "must be >= " + number(r.min);
  return "must be in [" + number(r.min) + ", " + number(*r.max) + "]";
}

bool is_numeric_type(const std::string& type) {
  return type == "UINT" || type == "INT" || type == "FLOAT" || type == "NUMBER";
}

}  // namespace

CLI::Option* with_range(CLI::Option* opt, double min, std::optional<double> max) {
  NumericRange r{min, max};
  ranges()[opt] = r;
  opt->check(CLI::Validator(
      [r](std::string& in) -> std::string {
        const char* s = in.c_str();
        char* end = nullptr;
        double v = std::strtod(s, &end);
        // Not a number at all: leave the message to CLI11's conversion, which names the type.
        if (end == s) return {};
        if (v < r.min || (r.max && v > *r.max) || std::isnan(v)) return describe(r) + ", got " + in;
        return {};
      },
      describe({min, max}), "range"));
  return opt;
}

void complete_ranges(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (ranges().count(opt) || !is_numeric_type(opt->get_type_name())) continue;
    if (opt->get_type_name() == "UINT") with_range(opt, 0);
  }
}

std::optional<NumericRange> range_of(const CLI::Option* opt) {
  auto it = ranges().find(opt);
  if (it == ranges().end()) return std::nullopt;
  return it->second;
}

}  // namespace commbench
