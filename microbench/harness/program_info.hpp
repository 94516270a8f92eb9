// What a benchmark binary says about itself without running: --version, --list-backends
// and --list-options. Scripts ask these instead of scraping --help, CSV or source. Every
// binary answers right after parsing its command line, before MPI is initialized, so a
// plain invocation (no launcher) works and stdout holds nothing but the answer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/cli_fwd.hpp"

namespace commbench {

// Semantic size name -> the option that sets it, e.g. {"max", "--max-size"}.
using SizeOptions = std::vector<std::pair<std::string, std::string>>;

// What --list-options reports beside the options themselves.
struct ProgramShape {
  std::string program;
  bool raw_baselines = false;  // --list-backends lists raw-* too (the microbenchmarks)
  SizeOptions sizes;
  std::vector<std::string> layouts;  // --layout's values (apps), or none
};

// "<program> commbench <version> (git <commit>, <mpi flavor>)".
std::string version_line(const std::string& program);

class InfoFlags {
 public:
  // Adds --version, --list-backends and --list-options to `app`.
  void add_to(CLI::App& app);
  // After app.parse: when one of them was given, prints its answer on stdout and exits 0.
  // Throws std::logic_error when `shape` names a size option `app` does not have.
  void answer_if_asked(const CLI::App& app, const ProgramShape& shape) const;

 private:
  bool version_ = false;
  bool list_backends_ = false;
  bool list_options_ = false;
};

}  // namespace commbench
