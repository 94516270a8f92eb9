// A bounded MPI_Finalize, the last resort. MPICH 4.0.2 over UCX's tcp transport could
// hang in MPI_Finalize (fixed upstream by pmodels/mpich PR 6596); Bootstrap now prevents
// that (harness/mpich_ucx_finalize.hpp) wherever MPICH speaks PMI-1 over the launcher's
// descriptor. Elsewhere, or if a peer dies inside finalize, a rank whose MPI_Finalize has
// not returned after the grace period says so in one line and exits 0 instead of hanging
// the job (its launcher may still call that exit a failure). By then every result is
// written and validated.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace commbench {

class FinalizeWatchdog {
 public:
  // grace: COMMBENCH_FINALIZE_GRACE_S when set (0 disables the watchdog), else 5 s.
  explicit FinalizeWatchdog(int rank);
  ~FinalizeWatchdog();  // MPI_Finalize returned: disarm
  FinalizeWatchdog(const FinalizeWatchdog&) = delete;
  FinalizeWatchdog& operator=(const FinalizeWatchdog&) = delete;

  static std::chrono::milliseconds grace();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace commbench
