// Will a run's connections fit under the descriptor limit? Checked before the backend
// exists, so a job that cannot fit ends with one line naming RLIMIT_NOFILE and `ulimit -n`
// instead of failing (or, in UCX 1.13, crashing) half-way through its connections.
#pragma once

#include <cstddef>
#include <string>

namespace commbench {

// Descriptors one connection end holds in this process, per backend (scale_probe's
// fds_per_connection column, descriptor_budget.cpp has the measurement); 0 for mpi,
// whose connections are MPI's own (MPI's sockets, if any, are opened by MPI_Init).
size_t descriptors_per_connection(const std::string& backend);
// What the backend keeps free besides (ucx: its refusal reserve, ucx_fd_limit.hpp).
size_t descriptors_kept_free(const std::string& backend);

// Empty when `connections` more connection ends of `backend` fit under this process's
// soft RLIMIT_NOFILE with what is open now; else the one line that says by how much and
// what raises it. `what` names the run ("the all-to-all of 64 ranks").
std::string descriptor_shortfall(const std::string& backend, size_t connections,
                                 const std::string& what);

}  // namespace commbench
