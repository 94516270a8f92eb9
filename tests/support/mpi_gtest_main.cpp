// main() of the in-process comm suites: MPI is initialized once for the process, so the
// backends that need it (mpi) run there too; the executables run under `mpirun -np 1`.
// At MPI_THREAD_MULTIPLE, because the suites run every policy, mpi:thread's progress
// thread included (the other policies call MPI from one thread, which MULTIPLE allows).
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
