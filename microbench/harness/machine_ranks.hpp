// How many ranks of the job share this rank's machine: ranks whose kernel has the same
// boot_id, so the hosts of scripts/vcluster (network namespaces on one kernel) and
// containers count as the one machine whose CPUs they share, which the launcher's
// per-host rank count (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS) does not see. The
// event loop's automatic spin yield (runtime/event_loop.hpp, default_spin_yield_after)
// reads the count from $COMMBENCH_MACHINE_RANKS, which note_machine_ranks sets.
#pragma once

#include <string>

namespace commbench {

class Bootstrap;

// This rank's machine: the running kernel's boot_id (a host name where /proc does not
// say). The sidecar's machine.ranks_on_node counts ranks by it too (machine_state.hpp).
std::string machine_id();

// Collective: every rank calls it once, after MPI_Init. Returns the count it set.
int note_machine_ranks(const Bootstrap& boot);

}  // namespace commbench
