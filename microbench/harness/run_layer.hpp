// The steps every benchmark session takes, in the same order whichever family runs it:
// the command line parsed (one line and an exit on bad input; --version and --list-*
// answered before MPI starts), MPI up and steered to --interface with --timeout armed,
// the listen address agreed by all ranks, the event loop's idle behaviour set, and at
// the end the run's metadata with its network block. BenchSession and AppSession add
// only what their family does between these steps.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/bootstrap.hpp"
#include "harness/cli_fwd.hpp"
#include "harness/interface.hpp"
#include "harness/machine_state.hpp"
#include "harness/metadata.hpp"
#include "harness/program_info.hpp"
#include "harness/run_selection.hpp"
#include "runtime/event_loop.hpp"

namespace commbench {

class RunLayer {
 public:
  RunLayer(int argc, char** argv, std::string program);

  // Adds --version / --list-* to `app` (which holds the family's options), parses, answers
  // an info flag and exits, then calls `resolve` (throws std::invalid_argument). Any
  // error: one line from rank 0, and exit.
  void parse(CLI::App& app, const ProgramShape& shape, const std::function<void()>& resolve);
  // The soft descriptor limit raised to the hard one (comm/fd_limit.hpp), MPI up, steered
  // to the selection's interface; the run's deadline armed.
  Bootstrap& start(int& argc, char**& argv, const RunSelection& selection);
  // Collective: the address every rank listens on, the loop's idle options, the run id,
  // and the job token with this rank's identity ("rank N") in selection.backend_options.auth.
  void agree(EventLoop& loop, RunSelection& selection);
  // Collective: meta["rejected_peers"] = peers refused on any rank, and
  // meta["rejected_peers_by_reason"] = {wrong_token, wrong_identity, bad_hello, silent: n}
  // (comm/peer_auth.hpp), read after teardown so strays met while closing count too.
  void add_rejected_peers(Json& meta, const RunSelection& selection);
  // Collective: the sidecar's metadata. `settings` gets what every run selects beside
  // the family's own; `transports` (called on rank 0 only, while connections are open)
  // maps a backend label to the library transports it uses.
  Json metadata(Json settings, const RunSelection& selection, const EventLoop& loop,
                const std::function<Json()>& transports);

  const std::string& program() const { return program_; }
  Bootstrap& boot() { return *boot_; }
  const InterfaceChoice& iface() const { return iface_; }
  const std::string& run_id() const { return run_id_; }

 private:
  std::string program_;
  int argc_;
  char** argv_raw_;                // main's, for the parse (MPI_Init may rewrite it later)
  std::vector<std::string> argv_;  // as given, for the metadata
  LoadAverage load_at_start_;
  InterfaceRequest request_;
  std::unique_ptr<Bootstrap> boot_;
  InterfaceChoice iface_;  // where our listeners bind, and why
  std::string run_id_;
};

}  // namespace commbench
