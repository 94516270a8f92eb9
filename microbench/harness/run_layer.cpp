#include "harness/run_layer.hpp"

#include <cstdlib>

#include "harness/network_metadata.hpp"
#include "harness/run_guard.hpp"

namespace commbench {

RunLayer::RunLayer(int argc, char** argv, std::string program)
    : program_(std::move(program)),
      argc_(argc),
      argv_raw_(argv),
      argv_(argv, argv + argc),
      load_at_start_(load_average()) {}

void RunLayer::parse(CLI::App& app, const ProgramShape& shape,
                     const std::function<void()>& resolve) {
  InfoFlags info;
  info.add_to(app);
  try {
    app.parse(argc_, argv_raw_);
    info.answer_if_asked(app, shape);  // before MPI: exits if asked
    resolve();
  } catch (const CLI::CallForHelp& e) {
    std::exit(launcher_rank_is_zero() ? app.exit(e) : 0);
  } catch (const std::exception& e) {  // CLI::ParseError included
    exit_bad_option(program_, e.what());
  }
}

Bootstrap& RunLayer::start(int& argc, char**& argv, const RunSelection& selection) {
  request_ = interface_request(selection.interface);
  boot_ = std::make_unique<Bootstrap>(argc, argv, program_, request_.value);
  arm_run_timeout(boot_->program(), selection.run_timeout_s);
  return *boot_;
}

void RunLayer::agree(EventLoop& loop, const RunSelection& selection) {
  iface_ = agree_listen_interface(*boot_, request_);
  apply_idle_options(selection, loop);
  run_id_ = make_run_id(*boot_);
}

Json RunLayer::metadata(Json settings, const RunSelection& selection, const EventLoop& loop,
                        const std::function<Json()>& transports) {
  settings["backend_opts"] = selection.backend_options.extra;  // an object in both families
  settings["listen_host"] = iface_.address;
  settings["spin_budget_ns"] = loop.options().spin_budget.count();
  settings["spin_yield_after_ns"] = loop.options().spin_yield_after.count();
  Json meta = collect_metadata(*boot_, argv_, run_id_, settings, load_at_start_);
  add_network_metadata(meta, *boot_, iface_,
                       boot_->rank() == 0 ? transports() : Json(Json::object()));
  return meta;
}

}  // namespace commbench
