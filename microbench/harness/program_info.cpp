#include "harness/program_info.hpp"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "commbench_git_commit.hpp"  // generated at build time
#include "harness/backend_listing.hpp"
#include "harness/bootstrap.hpp"
#include "harness/idle_rule.hpp"
#include "harness/option_listing.hpp"

namespace commbench {

namespace {
using Json = nlohmann::ordered_json;

Json identity(const std::string& program) {
  Json j;
  j["program"] = program;
  j["version"] = COMMBENCH_VERSION;
  j["git_commit"] = COMMBENCH_GIT_COMMIT;
  j["mpi_flavor"] = Bootstrap::mpi_flavor();  // compile-time: needs no MPI_Init
  return j;
}

[[noreturn]] void print_and_exit(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
  std::exit(0);
}
}  // namespace

std::string version_line(const std::string& program) {
  return program + " commbench " + COMMBENCH_VERSION + " (git " + COMMBENCH_GIT_COMMIT + ", " +
         Bootstrap::mpi_flavor() + ")";
}

void InfoFlags::add_to(CLI::App& app) {
  app.add_flag("--version", version_, "Print the program, suite version, commit and MPI; exit");
  app.add_flag("--list-backends", list_backends_,
               "Print the backends as JSON (progress policies, defaults, raw baselines, "
               "--backend-opt keys, the @idle rules an entry may name); exit");
  app.add_flag("--list-options", list_options_,
               "Print every option as JSON (name, aliases, default, description), which "
               "options set the sizes, and the layouts; exit");
}

void InfoFlags::answer_if_asked(const CLI::App& app, const ProgramShape& shape) const {
  if (version_) print_and_exit(version_line(shape.program));
  if (list_backends_) {
    Json j = identity(shape.program);
    j["backends"] = backend_table(shape.raw_baselines);
    // What a coroutine entry may add after '@' (--backend ucx:polling@spin).
    Json rules = Json::array();
    for (const auto& r : idle_rules())
      rules.push_back({{"name", r.name}, {"description", r.description}});
    j["idle_rules"] = rules;
    print_and_exit(j.dump(2));
  }
  if (list_options_) {
    Json j = identity(shape.program);
    j["options"] = option_table(app);
    Json sizes = Json::object();
    for (const auto& [name, option] : shape.sizes) {
      if (app.get_option_no_throw(option) == nullptr)
        throw std::logic_error("size '" + name + "' names " + option + ", which is no option");
      sizes[name] = option;
    }
    j["sizes"] = sizes;
    j["layouts"] = shape.layouts;
    print_and_exit(j.dump(2));
  }
}

}  // namespace commbench
