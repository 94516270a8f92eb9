// The options a binary accepts, as --list-options prints them: a walk over the CLI11 App
// that parses the command line, so the listing is what is accepted.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace commbench {

// [{name, aliases, default, takes_value, description}]: name is the first long form
// ("--chunk-size"), aliases every other spelling ("-c"); default is the declared default
// as --help shows it, null where none is declared (unset, or derived from other options:
// the description says how).
nlohmann::ordered_json option_table(const CLI::App& app);

}  // namespace commbench
