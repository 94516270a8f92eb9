// MPI itself, as the backend needs it: initialized with a thread level the event loop can
// live with, and a hook into MPI_Finalize so what the backend built on MPI is freed before
// MPI goes away. Kept apart from the context because it is about the library's lifetime,
// not about connections.
#pragma once

namespace commbench::mpi {

// Initializes MPI if nobody did (unit tests, tools without a harness: then finalized at
// exit), asking for `level`. Throws CommError if MPI is already finalized or its thread
// level is below `level` (one line naming both levels).
void ensure_mpi(int level);
// "MPI_THREAD_MULTIPLE" etc.
const char* thread_level_name(int level) noexcept;
// Runs `fn` first thing inside MPI_Finalize, while MPI still works (at most one hook).
void run_at_finalize(void (*fn)());
// The largest tag the backend hands out: MPI_TAG_UB, capped so a table of them stays small.
int tag_upper_bound();

}  // namespace commbench::mpi
