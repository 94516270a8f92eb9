// Process-level guards every benchmark main shares (microbench and appbench): who prints
// an option error before MPI is up, and a deadline for the whole run.
#pragma once

#include <string>

namespace commbench {

// Before MPI is up only the launcher's environment tells the rank; only rank 0 should
// print an option error. True outside a launcher.
bool launcher_rank_is_zero();

// A bad option, seen by every rank before MPI is up: rank 0 prints "<program>: error:
// <what>" and exits 2, the other ranks exit 0. Were they to exit 2 as well, one that got
// there first could make the launcher kill rank 0 before its line was out (seen once
// in a loaded test run: exit 2 and no message). The job still fails, with rank 0's status.
[[noreturn]] void exit_bad_option(const std::string& program, const std::string& what);

// After `seconds` (> 0) the process prints "<program>: error: run exceeded --timeout of N s"
// and exits with status 3, wherever it is (a hung peer, a stuck library call).
void arm_run_timeout(const std::string& program, double seconds);

}  // namespace commbench
