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
// The thread level of a run whose MPI calls all come from one thread (every policy but the
// progress-thread ones, and raw-mpi): MPI_THREAD_SINGLE, what MPI_Init gives NetPIPE and
// OSU. Open MPI takes a real lock in every call at any level above SINGLE (it turns on
// opal_using_threads), measured at 30-90 ns one way on an 8 B ping-pong here; MPICH
// locks only at MULTIPLE. The harness's helper threads (the stall and finalize watchdogs)
// never call MPI.
int one_thread_level() noexcept;
// "MPI_THREAD_MULTIPLE" etc.
const char* thread_level_name(int level) noexcept;
// Runs `fn` first thing inside MPI_Finalize, while MPI still works (at most one hook).
void run_at_finalize(void (*fn)());
// The largest tag the backend hands out: MPI_TAG_UB, capped so a table of them stays small.
int tag_upper_bound();

}  // namespace commbench::mpi
