// A bounded MPI_Finalize. MPICH 4.0.2 over UCX's tcp transport (every run between hosts
// here) can hang in MPI_Finalize: one rank waits inside UCX for a flush acknowledgement
// from a peer that has already entered the PMI barrier, where nothing progresses UCX
// (fixed upstream by pmodels/mpich PR 6596, "remove MPIR_pmi_barrier in finalize"). A
// barrier before it makes the race rare, not impossible. By the time Bootstrap finalizes,
// every result is written and validated, so a rank whose MPI_Finalize has not returned
// after the grace period says so in one line and exits 0 instead of hanging the job; every
// rank arms its own watchdog, so the ranks blocked in the PMI barrier go too.
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
