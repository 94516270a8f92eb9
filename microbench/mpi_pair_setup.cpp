// mpi_pair_setup: start-up cost of the mpi:// backend's isolation constructions at the
// current job size (backends/mpi/pair_comms.hpp):
//   create        one communicator per pair, Group_incl + MPI_Comm_create (MPI4Dask; every
//                 rank takes part in all n(n-1)/2 collective calls)
//   create_group  one communicator per pair, MPI_Comm_create_group (pair-local calls)
//   world         one MPI_Comm_dup; connections isolated by per-connection tags
// and, in a fourth row, what the backend adds on top of any of them: its lanes, kLanes
// more duplicates of MPI_COMM_WORLD (backends/mpi/mpi_context.hpp).
// Each method runs --reps times (interleaved); a row reports the slowest rank's time.
// Run as: mpirun -np N mpi_pair_setup [--reps 5]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "mpi/mpi_context.hpp"
#include "mpi/pair_comms.hpp"

using namespace commbench::mpi;

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      if (rank == 0)
        std::fprintf(stderr,
                     "mpi_pair_setup: error: unknown argument '%s' (usage: mpirun -np N "
                     "mpi_pair_setup [--reps R])\n",
                     argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  const PairMethod methods[] = {PairMethod::create, PairMethod::create_group, PairMethod::world};
  constexpr size_t kMethods = std::size(methods);
  constexpr size_t kRows = kMethods + 1;  // the three methods, then the lanes
  std::vector<std::vector<double>> times(kRows);
  std::vector<size_t> comms(kRows);
  for (int r = 0; r < reps; ++r)
    for (size_t m = 0; m < kRows; ++m) {
      const bool lanes_row = m == kMethods;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      PairComms pc;
      std::vector<MPI_Comm> lanes(lanes_row ? Context::kLanes : 0);
      if (lanes_row)
        for (MPI_Comm& c : lanes) MPI_Comm_dup(MPI_COMM_WORLD, &c);
      else
        pc = build_pair_comms(MPI_COMM_WORLD, methods[m]);
      double mine = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      times[m].push_back(slowest);
      comms[m] = lanes_row ? lanes.size() : pc.created;
      free_pair_comms(pc);
      for (MPI_Comm& c : lanes) MPI_Comm_free(&c);
    }
  if (rank == 0) {
    std::printf(
        "#ranks  method        comms_per_rank  setup_ms_median  setup_ms_min  setup_ms_max\n");
    for (size_t m = 0; m < kRows; ++m) {
      auto t = times[m];
      std::sort(t.begin(), t.end());
      std::printf("%6d  %-12s  %14zu  %15.3f  %12.3f  %12.3f\n", size,
                  m == kMethods ? "+lanes" : to_string(methods[m]), comms[m], 1e3 * t[t.size() / 2],
                  1e3 * t.front(), 1e3 * t.back());
    }
  }
  MPI_Finalize();
  return 0;
}
