#include "harness/finalize_watchdog.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace commbench {

std::chrono::milliseconds FinalizeWatchdog::grace() {
  const char* s = std::getenv("COMMBENCH_FINALIZE_GRACE_S");
  if (s && *s) {
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end != s && v >= 0) return std::chrono::milliseconds(static_cast<long long>(v * 1000));
  }
  return std::chrono::seconds(5);
}

FinalizeWatchdog::FinalizeWatchdog(int rank) {
  auto limit = grace();
  if (limit.count() == 0) return;
  thread_ = std::thread([this, limit, rank] {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, limit, [this] { return done_; })) return;
    std::fprintf(stderr,
                 "rank %d: MPI_Finalize did not return in %.0f s (the MPICH 4.0.2 + UCX tcp "
                 "finalize race); results are complete, exiting 0\n",
                 rank, static_cast<double>(limit.count()) / 1000.0);
    std::fflush(nullptr);
    _exit(0);  // no destructors: the main thread is still inside MPI
  });
}

FinalizeWatchdog::~FinalizeWatchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

}  // namespace commbench
