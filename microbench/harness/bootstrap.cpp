#include "harness/bootstrap.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "harness/finalize_watchdog.hpp"
#include "harness/inherited_listeners.hpp"
#include "harness/mpich_ucx_finalize.hpp"
#include "mpi/mpi_session.hpp"

namespace commbench {

Bootstrap::Bootstrap(int& argc, char**& argv, std::string program, const std::string& interface,
                     int thread_level)
    : program_(std::move(program)) {
  inherited_closed_ = close_inherited_listeners();
  steering_ = &steer_libraries(interface);
  {
    mpich_ucx_finalize::CaptureLibraryWorkers capture;
    MPI_Init_thread(&argc, &argv, thread_level, &thread_level_);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (thread_level_ < thread_level)
    fail_all(std::string("the MPI library provides ") + mpi::thread_level_name(thread_level_) +
                 ", the selected policies need " + mpi::thread_level_name(thread_level),
             1);
}

Bootstrap::~Bootstrap() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // Every rank enters MPI_Finalize together, and on MPICH 4.0.2 + UCX none leaves its
  // endpoints' closes before all are done (harness/mpich_ucx_finalize.hpp). The watchdog
  // is the last resort where that remedy cannot engage.
  MPI_Barrier(MPI_COMM_WORLD);
  mpich_ucx_finalize::arm(size_);
  FinalizeWatchdog watchdog(rank_);
  MPI_Finalize();
}

std::vector<std::string> Bootstrap::allgather(const std::string& mine) const {
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<size_t>(size_));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> displs(static_cast<size_t>(size_));
  int total = 0;
  for (int i = 0; i < size_; ++i) {
    displs[static_cast<size_t>(i)] = total;
    total += lens[static_cast<size_t>(i)];
  }
  std::string all(static_cast<size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                 MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int i = 0; i < size_; ++i)
    out.push_back(all.substr(static_cast<size_t>(displs[static_cast<size_t>(i)]),
                             static_cast<size_t>(lens[static_cast<size_t>(i)])));
  return out;
}

std::string Bootstrap::broadcast(const std::string& value, int root) const {
  int len = static_cast<int>(value.size());
  MPI_Bcast(&len, 1, MPI_INT, root, MPI_COMM_WORLD);
  std::string out = rank_ == root ? value : std::string(static_cast<size_t>(len), '\0');
  MPI_Bcast(out.data(), len, MPI_CHAR, root, MPI_COMM_WORLD);
  return out;
}

JobToken Bootstrap::job_token(const JobToken* given) const {
  JobToken t{};
  if (rank_ == 0) t = given ? *given : random_job_token();
  MPI_Bcast(t.data(), static_cast<int>(t.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
  return t;
}

void Bootstrap::barrier() const {
  MPI_Barrier(MPI_COMM_WORLD);
}

bool Bootstrap::all(bool mine) const {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return out != 0;
}

long long Bootstrap::sum(long long mine) const {
  long long out = 0;
  MPI_Allreduce(&mine, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

void Bootstrap::fail_all(const std::string& message, int code) {
  if (rank_ == 0) std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), message.c_str());
  std::fflush(stderr);
  mpich_ucx_finalize::arm(size_);
  MPI_Finalize();
  std::exit(code);
}

void Bootstrap::fail_here(const std::string& message, int code) const {
  std::fprintf(stderr, "%s: error (rank %d): %s\n", program_.c_str(), rank_, message.c_str());
  std::fflush(stderr);
  // MPICH's launcher tears the job down the moment MPI_Abort reaches it and drops output
  // it has not yet forwarded: about 1 run in 6 lost this very line (appbench worker_dies).
  // A moment's grace lets the launcher read it first.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

void Bootstrap::abort_job(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
}

std::string Bootstrap::mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<size_t>(len));
  while (!s.empty() && s.back() == '\0') s.pop_back();  // some libraries count the NUL
  auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == ',' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string Bootstrap::mpi_flavor() {
#if defined(OPEN_MPI) && OPEN_MPI
  return "openmpi";
#elif defined(MPICH_VERSION)
  return "mpich";
#else
  return "unknown";
#endif
}

}  // namespace commbench
