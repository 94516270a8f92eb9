// The MPI backend's progress policies (how a waiting coroutine gets its request
// completed; mpi_engine.hpp has the details). One table, read by parse_progress,
// to_string and the registry, so --list-backends shows exactly what is accepted.
#pragma once

#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"

namespace commbench::mpi {

enum class Progress { cooperative, batched, thread, blocking };

// First = the default.
inline constexpr PolicyEntry<Progress> kProgressPolicies[] = {
    {Progress::batched, "batched",
     "one MPI_Testsome over every pending request per loop turn resumes exactly the "
     "coroutines whose requests finished"},
    {Progress::cooperative, "cooperative",
     "the waiting coroutine re-tests its own request every turn (MPI4Dask's "
     "`while not req.Test(): await sleep(0)`)"},
    {Progress::thread, "thread",
     "a dedicated progress thread owns every pending request (MPI_Testsome back to back) "
     "and hands completions to the loop through a lock-free queue; needs "
     "MPI_THREAD_MULTIPLE",
     false, PolicyThread::polling, true},
    {Progress::blocking, "blocking",
     "MPI_Wait stops the whole loop until the request completes; a baseline that "
     "deadlocks in some patterns (refused by bidirectional bandwidth and the apps)",
     true},
};

// The MPI thread level a policy needs (the harness asks MPI_Init_thread for the highest
// any selected policy needs; ensure_mpi checks it).
int required_thread_level(Progress p) noexcept;

Progress parse_progress(const std::string& s);  // "" = the default; throws std::invalid_argument
const char* to_string(Progress p) noexcept;
std::vector<PolicyInfo> progress_policies();

}  // namespace commbench::mpi
