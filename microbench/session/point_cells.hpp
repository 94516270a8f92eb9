// The cells of one line of a microbenchmark's human table: size, backend, progress (with
// the entry's @idle rule), the benchmark's figures with `decimals` digits, and the wrong
// bytes when validating ("-" otherwise). The benchmark supplies the figures, the columns
// around them are shared.
#pragma once

#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "drivers/driver.hpp"

namespace commbench {

inline std::vector<std::string> point_cells(size_t size, const Driver& d,
                                            std::initializer_list<double> figures, int decimals,
                                            bool validate, size_t wrong) {
  std::vector<std::string> cells{std::to_string(size), d.backend(),
                                 d.idle().empty() ? d.progress() : d.progress() + "@" + d.idle()};
  for (double f : figures) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, f);
    cells.push_back(text);
  }
  cells.push_back(validate ? std::to_string(wrong) : "-");
  return cells;
}

}  // namespace commbench
