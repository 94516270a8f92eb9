// MPI as the launcher's bootstrap (what dask-mpi does): rank, size, exchanging listener
// addresses, barriers, and failing all ranks with one line. The MPI backend may then use
// the same MPI; for tcp and ucx, MPI carries nothing but this bootstrap.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "comm/peer_auth.hpp"
#include "steering/library_steering.hpp"

namespace commbench {

class Bootstrap {
 public:
  // Steers the libraries to `interface` (--interface; empty: none asked for; see
  // steering/library_steering.hpp), then initializes MPI at `thread_level`
  // (mpi::one_thread_level() when the loop calls MPI from one thread; MPI_THREAD_MULTIPLE
  // when a selected policy has a progress thread) and fails with a clear message if the
  // library provides less. An `interface` that names nothing on this host steers nothing: the
  // session's choice of listening address (harness/interface.hpp) reports it for the whole job.
  Bootstrap(int& argc, char**& argv, std::string program, const std::string& interface,
            int thread_level);
  ~Bootstrap();
  Bootstrap(const Bootstrap&) = delete;
  Bootstrap& operator=(const Bootstrap&) = delete;

  int rank() const noexcept { return rank_; }
  // The thread level MPI provides (MPI_THREAD_*).
  int thread_level() const noexcept { return thread_level_; }
  int size() const noexcept { return size_; }
  const std::string& program() const noexcept { return program_; }
  // What was set before MPI_Init, and how many launcher listeners this rank let go.
  const LibrarySteering& steering() const noexcept { return *steering_; }
  int inherited_listeners_closed() const noexcept { return inherited_closed_; }

  std::vector<std::string> allgather(const std::string& mine) const;
  std::string broadcast(const std::string& value, int root = 0) const;
  void barrier() const;
  // Collective: the job's secret token (comm/peer_auth.hpp), drawn by rank 0 from
  // getrandom and broadcast over MPI, the one channel the job already trusts. `given`
  // (tests only: --test-job-token) replaces the draw when not null.
  JobToken job_token(const JobToken* given = nullptr) const;
  // Logical AND across ranks (e.g. "did validation pass everywhere").
  bool all(bool mine) const;
  long long sum(long long mine) const;

  // An error that every rank detects alike (bad options): rank 0 prints one line,
  // every rank finalizes and exits with `code`.
  [[noreturn]] void fail_all(const std::string& message, int code = 2);
  // An error on this rank only: prints one line and aborts the whole job.
  [[noreturn]] void fail_here(const std::string& message, int code = 1) const;
  // MPI_Abort on the world, from any thread, nothing printed (the stall watchdog's end).
  static void abort_job(int code);

  // "openmpi" | "mpich" | "unknown", and MPI_Get_library_version's first line.
  static std::string mpi_flavor();
  static std::string mpi_library_version();

 private:
  std::string program_;
  const LibrarySteering* steering_ = nullptr;
  int inherited_closed_ = 0;
  int rank_ = 0;
  int thread_level_ = 0;
  int size_ = 1;
};

}  // namespace commbench
