// raw-mpi: its communicator, and the one-line text of a failed call.
#include "drivers/raw_mpi_driver.hpp"

#include <memory>

namespace commbench {

void raw_mpi::fail(int rc, const char* what) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw CommError(std::string("raw-mpi ") + what + ": " +
                  std::string(text, static_cast<size_t>(len)));
}

RawMpiDriver::~RawMpiDriver() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

void RawMpiDriver::connect() {
  // Collective over every rank; ranks >= 2 take part in it and then idle.
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  peer_ = env_.boot.rank() == 0 ? 1 : 0;
}

void RawMpiDriver::close() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

}  // namespace commbench
