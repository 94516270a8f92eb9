/* MPICH's finalize hang without any of our code: MPI_Init, a barrier, MPI_Finalize.
   Run across virtual hosts by finalize_only.sh; with "allpairs" every pair of ranks
   exchanges a message first (that does not prevent it either). */
#include <mpi.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "allpairs") == 0) {
    for (int k = 1; k < size; ++k) {
      int out = rank, in;
      MPI_Sendrecv(&out, 1, MPI_INT, (rank + k) % size, 1, &in, 1, MPI_INT,
                   (rank + size - k) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
