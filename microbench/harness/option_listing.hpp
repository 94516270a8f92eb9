// The options a binary accepts, as --list-options prints them: a walk over the CLI11 App
// that parses the command line, so the listing is what is accepted.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <type_traits>

#include "harness/numeric_range.hpp"

namespace commbench {

// [{name, aliases, default, takes_value, description, type[, range, integer]}]: name is the
// first long form
// ("--chunk-size"), aliases every other spelling ("-c"); default is the declared default
// as --help shows it, null where none is declared (unset, or derived from other options:
// the description says how); range {min, max} (max null: unbounded) on every numeric
// option (harness/numeric_range.hpp), integer whether it takes whole numbers only.
nlohmann::ordered_json option_table(const CLI::App& app);

// A run of options of one type, registered alike: a table reads better than a chain of
// add_option calls, and --help / --list-options show the defaults of all or none.
// Numbers carry their smallest accepted value (harness/numeric_range.hpp).
template <typename T>
struct OptionRow {
  const char* flag;
  T* value;
  std::string help;
  double min = 0;
};
enum class ShowDefault { no, yes };
template <typename T, size_t N>
void add_option_rows(CLI::App& app, const OptionRow<T> (&rows)[N], ShowDefault show) {
  for (const auto& r : rows) {
    CLI::Option* o = app.add_option(r.flag, *r.value, r.help);
    if (show == ShowDefault::yes) o->capture_default_str();
    if constexpr (std::is_arithmetic_v<T>) with_range(o, r.min);
  }
}

}  // namespace commbench
