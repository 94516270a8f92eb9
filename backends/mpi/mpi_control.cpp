#include "mpi/mpi_control.hpp"

#include <cstring>
#include <memory>

#include "mpi/mpi_graveyard.hpp"
#include "mpi/mpi_wire.hpp"

namespace commbench::mpi {

void ControlChannel::open(MPI_Comm world) {
  MPI_Comm_dup(world, &comm_);
  // A truncated or failed request must become a CommError on one connection, not abort
  // the whole job.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}

void ControlChannel::post(Receive& r) {
  MPI_Irecv(r.buf, sizeof r.buf, MPI_BYTE, MPI_ANY_SOURCE, r.tag, comm_, &r.req);
}

void ControlChannel::dispatch(Receive& r, const MPI_Status& st, ControlHandler& h) {
  int bytes = 0;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  std::span<const std::byte> msg(r.buf, static_cast<size_t>(bytes < 0 ? 0 : bytes));
  if (r.tag == kTagConnect)
    h.on_connect_request(st.MPI_SOURCE, msg);
  else
    h.on_close_notice(st.MPI_SOURCE, msg);
}

void ControlChannel::listen() {
  listening_ = true;
  for (Receive& r : receives_) post(r);
}

void ControlChannel::stop_listening(ControlHandler& h) {
  listening_ = false;
  // A receive that matched before the cancel took effect still carries a message.
  for (Receive& r : receives_) {
    MPI_Status st;
    int cancelled = 0;
    MPI_Cancel(&r.req);
    MPI_Wait(&r.req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    if (!cancelled) dispatch(r, st, h);
  }
}

bool ControlChannel::poll(ControlHandler& h) {
  bool did = false;
  // Handle before re-posting: the handler reads the receive buffer. Several per call (a
  // burst of connects or close notices must not queue up behind one-per-poll), bounded so
  // a flood cannot starve the loop.
  for (Receive& r : receives_)
    for (int budget = 16; budget > 0 && r.req != MPI_REQUEST_NULL; --budget) {
      int flag = 0;
      MPI_Status st;
      if (MPI_Test(&r.req, &flag, &st) != MPI_SUCCESS || !flag) break;
      dispatch(r, st, h);
      if (listening_) post(r);
      did = true;
    }
  return did;
}

void ControlChannel::send(const void* data, size_t bytes, int dest, int tag, Graveyard& graves) {
  auto buf = std::make_unique<std::byte[]>(bytes);
  std::memcpy(buf.get(), data, bytes);
  MPI_Request r;
  int rc = MPI_Isend(buf.get(), static_cast<int>(bytes), MPI_BYTE, dest, tag, comm_, &r);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, "control send");
  graves.bury(r, nullptr, std::move(buf));
}

void ControlChannel::release(std::vector<std::byte>& scratch) noexcept {
  // Control messages that arrived after the last engine stopped listening (a peer's
  // last close notices): received here, or MPICH's UCX layer warns about each unmatched
  // message as it shuts down ("unexpected tag-receive descriptor ... was not matched",
  // once per rank in every run with two mpi backends). They are small, hence eager:
  // receiving one cannot wait on the peer.
  if (comm_ == MPI_COMM_NULL) return;
  discard_arrived(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, scratch);
  MPI_Comm_free(&comm_);
}

}  // namespace commbench::mpi
