#include "mpi/mpi_session.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "comm/errors.hpp"
#include "steering/library_steering.hpp"

namespace commbench::mpi {

namespace {

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void (*g_at_finalize)() = nullptr;

}  // namespace

int one_thread_level() noexcept {
  return MPI_THREAD_SINGLE;
}

const char* thread_level_name(int level) noexcept {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "an unknown thread level";
  }
}

void ensure_mpi(int needed) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) throw CommError("mpi backend: MPI is already finalized");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Unit tests and tools without a harness: we initialize, and finalize at exit.
    // Steered like a benchmark (steering/library_steering.hpp), so these listen on no
    // wildcard address either.
    steer_libraries("");
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, needed, &provided);
    std::atexit(&finalize_at_exit);
  }
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < needed)
    throw CommError(std::string("mpi backend: MPI runs at ") + thread_level_name(level) +
                    ", this policy needs " + thread_level_name(needed) +
                    " (select it before MPI_Init_thread, or ask for it there)");
}

void run_at_finalize(void (*fn)()) {
  g_at_finalize = fn;
  // MPI_Finalize deletes MPI_COMM_SELF's attributes before anything else (MPI 4.0,
  // 11.2.4): the standard hook for a library to free what it built on MPI. Without it
  // the duplicated communicators outlived MPI and valgrind counted ~1.3 KB lost per rank.
  static int key = MPI_KEYVAL_INVALID;
  auto on_finalize = [](MPI_Comm, int, void*, void*) -> int {
    if (g_at_finalize) g_at_finalize();
    MPI_Comm_free_keyval(&key);
    return MPI_SUCCESS;
  };
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &key, nullptr) == MPI_SUCCESS)
    MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
}

int tag_upper_bound() {
  void* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  return flag ? std::min(*static_cast<int*>(ub), 1 << 24) : 32767;
}

}  // namespace commbench::mpi
