// CLI11's App, declared only. CLI11 2.1 is header-only with no precompiled mode and costs
// ~6 CPU-s in every translation unit that includes it (-O2 or ASan alike), so headers that
// merely name CLI::App in a signature include this, and the .cpp files that build or
// parse options include <CLI/CLI.hpp> themselves.
#pragma once

namespace CLI {
class App;
class Option;
}  // namespace CLI
