/* How many communicators one process can hold: MPI_Comm_dup(MPI_COMM_SELF) until the
 * library refuses (errors returned, not fatal). The paper's `create` construction needs
 * one per peer, so this bounds the ranks it can reach. Run: mpirun -np 1 ./comm_limit */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  enum { kCap = 1 << 20 };
  MPI_Comm* held = malloc(sizeof(MPI_Comm) * kCap);
  int n = 0;
  while (n < kCap && MPI_Comm_dup(MPI_COMM_SELF, &held[n]) == MPI_SUCCESS) ++n;
  printf("communicators_held %d%s\n", n, n == kCap ? " (stopped at the cap, no refusal)" : "");
  for (int i = 0; i < n; ++i) MPI_Comm_free(&held[i]);
  free(held);
  MPI_Finalize();
  return 0;
}
