#include "harness/run_layer.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "comm/fd_limit.hpp"
#include "comm/peer_auth.hpp"
#include "comm/registry.hpp"
#include "harness/machine_ranks.hpp"
#include "harness/network_metadata.hpp"
#include "harness/numeric_range.hpp"
#include "harness/run_guard.hpp"
#include "mpi/mpi_session.hpp"

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
  complete_ranges(app);
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

namespace {

// The highest MPI thread level a selected policy needs: a progress thread makes it
// MPI_THREAD_MULTIPLE for the whole run, raw-mpi included, so the baseline and the
// policies it is compared with pay the same library locking; otherwise
// mpi::one_thread_level() (MPI_THREAD_SINGLE: mpi_session.hpp says why).
int needed_thread_level(const RunSelection& selection) {
  for (const BackendSpec& spec : selection.specs)
    if (const BackendInfo* b = registry().find(spec.name))
      if (b->policy(spec.progress).needs_mpi_thread_multiple) return MPI_THREAD_MULTIPLE;
  return mpi::one_thread_level();
}

// Which selected policies run a progress thread, and whether the node then has more busy
// threads than CPUs: a polling progress thread spins beside its rank's loop, so on 2
// cores two ranks with ucx:thread are oversubscribed, and the report says so beside
// those figures (issue 16).
Json progress_thread_note(const RunSelection& selection) {
  Json policies = Json::array();
  int polling = 0;
  for (const BackendSpec& spec : selection.specs) {
    const BackendInfo* b = registry().find(spec.name);
    PolicyThread thread = b ? b->policy(spec.progress).thread : PolicyThread::none;
    if (thread == PolicyThread::none) continue;
    policies.push_back(spec.label());
    if (thread == PolicyThread::polling) ++polling;
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  long local = 1;  // ranks on this node, as the launcher says (a singleton: 1)
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char* s = std::getenv(v)) local = std::max(local, std::atol(s));
  Json note;
  note["policies"] = policies;
  note["polling_threads_per_rank"] = polling;
  note["local_ranks"] = local;
  note["cpus_online"] = cpus;
  // Each rank's loop sleeps while a progress thread owns the progress (handoff.hpp), so
  // a rank is one busy thread per polling progress thread, and one more while it runs
  // the loop's coroutines or another policy interleaved with it.
  note["oversubscribed"] = polling > 0 && local * (1 + polling) > cpus;
  return note;
}

}  // namespace

Bootstrap& RunLayer::start(int& argc, char**& argv, const RunSelection& selection) {
  request_ = interface_request(selection.interface);
  // Before MPI_Init, so MPI's own sockets have the room too (comm/fd_limit.cpp says why).
  raise_descriptor_limit();
  boot_ = std::make_unique<Bootstrap>(argc, argv, program_, request_.value,
                                      needed_thread_level(selection));
  arm_run_timeout(boot_->program(), selection.run_timeout_s);
  note_machine_ranks(*boot_);
  return *boot_;
}

void RunLayer::agree(EventLoop& loop, RunSelection& selection) {
  iface_ = agree_listen_interface(*boot_, request_);
  apply_idle_options(selection, loop);
  run_id_ = make_run_id(*boot_);
  // Tests only: $COMMBENCH_TEST_JOB_TOKEN (32 hex digits) replaces the random draw, so a
  // test can grep the run's output for the token. The sidecar leaves out every variable
  // named *TOKEN* (harness/secret_env.hpp), and the token is never on the command line.
  const char* fixed = boot_->rank() == 0 ? std::getenv("COMMBENCH_TEST_JOB_TOKEN") : nullptr;
  JobToken given{};
  bool use_given = false;
  if (fixed && *fixed) {
    if (!parse_job_token(fixed, given))
      boot_->fail_here("$COMMBENCH_TEST_JOB_TOKEN must be 32 hex digits");
    use_given = true;
  }
  PeerAuth& auth = selection.backend_options.auth;
  auth.token = boot_->job_token(use_given ? &given : nullptr);
  auth.self_id = rank_identity(boot_->rank());
}

void RunLayer::add_rejected_peers(Json& meta, const RunSelection& selection) {
  const PeerAuth& auth = selection.backend_options.auth;
  meta["rejected_peers"] = boot_->sum(static_cast<long long>(auth.rejected_count()));
  Json by = Json::object();
  for (size_t k = 0; k < kRefusalKinds; ++k) {
    auto why = static_cast<Refusal>(k);
    by[to_string(why)] = boot_->sum(static_cast<long long>(auth.rejected_count(why)));
  }
  meta["rejected_peers_by_reason"] = by;
}

Json RunLayer::metadata(Json settings, const RunSelection& selection, const EventLoop& loop,
                        const std::function<Json()>& transports) {
  settings["backend_opts"] = selection.backend_options.extra;  // an object in both families
  settings["listen_host"] = iface_.address;
  settings["spin_budget_ns"] = loop.options().spin_budget.count();
  settings["spin_yield_after_ns"] = loop.options().spin_yield_after.count();
  settings["mpi_thread_level"] = mpi::thread_level_name(boot_->thread_level());
  settings["progress_threads"] = progress_thread_note(selection);
  // RLIMIT_NOFILE as the launcher gave it, and as the run had it (soft raised to hard).
  DescriptorLimit given = raise_descriptor_limit(), now = descriptor_limit();
  settings["fd_limit"] = {{"soft_at_start", given.soft}, {"soft", now.soft}, {"hard", now.hard}};
  Json meta = collect_metadata(*boot_, argv_, run_id_, settings, load_at_start_);
  add_network_metadata(meta, *boot_, iface_,
                       boot_->rank() == 0 ? transports() : Json(Json::object()));
  return meta;
}

}  // namespace commbench
