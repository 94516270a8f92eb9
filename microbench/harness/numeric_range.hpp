// Every number a binary accepts has a range, checked by CLI11 while the command line is
// parsed -- before MPI starts or anything is allocated -- so a bad value ends with one
// line naming the option and its range (exit 2), never with a run that wrapped -1 into
// 18446744073709551615 (strtoull does) and then measured nothing.
#pragma once

#include <optional>

#include "harness/cli_fwd.hpp"

namespace commbench {

struct NumericRange {
  double min;
  std::optional<double> max;  // none: as large as the option's type holds
};

// Checks every value given to `opt` against [min, max]; returns `opt`. The message reads
// "--reps: must be >= 1, got -1" or "--factor: must be in [2, 64], got 1".
CLI::Option* with_range(CLI::Option* opt, double min, std::optional<double> max = std::nullopt);

// Gives each numeric option of `app` that has no range the one its type implies: an
// unsigned option is >= 0. Run once all options are added (RunLayer::parse does).
void complete_ranges(CLI::App& app);

// The range with_range or complete_ranges gave `opt`, for --list-options.
std::optional<NumericRange> range_of(const CLI::Option* opt);

}  // namespace commbench
