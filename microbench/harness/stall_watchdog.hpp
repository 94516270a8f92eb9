// The run's defence against a silent peer, for every driver alike: a thread that watches
// a progress counter and ends the process with one line naming the lost peer (and what
// was running) when nothing moved for the allowed silence (--read-timeout, default 5 s,
// plus the time one unit of work may take at a floor rate).
//
// Why a thread, and the only watchdog (the coroutine drivers had a second one on the
// event loop until issue 27 item 6): the raw baselines block inside the library
// (recv(2), MPI_Recv/MPI_Waitall, ucp_worker_progress) and the bootstrap's collectives
// block inside MPI; over a dead link (a pulled cable, a lost host) none of them returns
// until TCP gives up, minutes later. A thread is the only thing that still runs then, so
// it watches the coroutine drivers too, and their timed loop runs no timer. It prints
// and calls _exit: MPI_Abort itself may wait on the dead link (Open MPI's tcp BTL,
// MPICH's UCX), and the launcher sees a rank exit non-zero either way.
//
// Progress is counted, not timed (harness/progress_ticks.hpp): every completed receive and
// send, and every finished step of the run, adds one.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/progress_ticks.hpp"

namespace commbench {

// Slowest transfer rate the allowance counts on for one unit of work (a message, or a
// whole bandwidth window that completes as one, as raw-mpi's MPI_Waitall does): 50 MB/s,
// below what the virtual cluster's emulator carries at 5% loss.
inline constexpr double kFloorBytesPerSecond = 50e6;

class StallWatchdog {
 public:
  // program: for the line; exit_code: the process's status when it fires; abort: called
  // after the line (MPI_Abort: MPICH's launcher ends a job at once on it, but waits for
  // the lost host's proxy when a rank just exits); if it has not ended the process
  // within 2 s (it may wait on the dead link itself), _exit does.
  StallWatchdog(std::string program, int exit_code, std::function<void(int)> abort = {});
  ~StallWatchdog();
  StallWatchdog(const StallWatchdog&) = delete;
  StallWatchdog& operator=(const StallWatchdog&) = delete;

  // Watches from now on: `silence_s` (> 0; 0 disarms) without a tick ends the run with
  // "<program>: error (rank R): lost <peer> during <doing>: nothing received or sent for
  // N s (--read-timeout <silence_s> s; ...)". Re-arming keeps the clock of the last tick.
  void arm(double silence_s, int rank, const std::string& peer);
  // Extra silence allowed while one unit of `bytes` is in flight (bytes / floor rate).
  void allow_unit(std::uint64_t bytes);
  // What runs now ("tcp:epoll at 8 B"; empty: nothing said), for the line.
  void doing(std::string what);
  void disarm();
  // The run already printed its own error line and is ending: if it has not ended when
  // the watchdog fires, exit without a second line.
  void reported();
  // The longest silence seen while armed, in seconds (COMMBENCH_STALL_REPORT prints it).
  double longest_silence_s() const;

 private:
  void watch();

  std::string program_;
  int exit_code_;
  std::function<void(int)> abort_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  double silence_s_ = 0, unit_s_ = 0;
  int rank_ = 0;
  std::string peer_;
  std::string doing_;
  std::atomic<bool> reported_{false};
  std::uint64_t longest_ns_ = 0;
  std::thread thread_;
};

}  // namespace commbench
