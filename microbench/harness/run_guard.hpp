// Process-level guards every benchmark main shares (microbench and appbench): who prints
// an option error before MPI is up, and a deadline for the whole run.
#pragma once

#include <string>

namespace commbench {

// Before MPI is up only the launcher's environment tells the rank; only rank 0 should
// print an option error (every rank exits alike). True outside a launcher.
bool launcher_rank_is_zero();

// After `seconds` (> 0) the process prints "<program>: error: run exceeded --timeout of N s"
// and exits with status 3, wherever it is (a hung peer, a stuck library call).
void arm_run_timeout(const std::string& program, double seconds);

}  // namespace commbench
