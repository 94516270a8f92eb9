// mpi://rank[:service] — the MPI backend: listener, connector and the backend factory.
//
// BackendOptions: progress = batched (default) | cooperative | blocking (mpi_engine.hpp);
// extra: wire = packed | per-frame, eager = bytes inlined in a packed message (16K),
// chunk = largest MPI message of a frame (1G; 0 = never split, MPI-4 only),
// pair_comms = world | create | create_group (pair_comms.hpp; fixed per process).
// Every rank must use the same wire, eager and chunk settings.
#pragma once

#include <memory>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"
#include "mpi/mpi_progress.hpp"  // progress_policies()

namespace commbench::mpi {

std::unique_ptr<Backend> make_mpi_backend(EventLoop& loop, const BackendOptions& options);
// Every extra key the backend reads (wire, eager, chunk, pair_comms).
std::vector<SettingInfo> backend_settings();

}  // namespace commbench::mpi
