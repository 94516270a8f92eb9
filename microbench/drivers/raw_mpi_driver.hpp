// raw-mpi: the MPI baseline without the coroutine layer, on a private duplicate of
// MPI_COMM_WORLD. send/recv are blocking MPI_Send/MPI_Recv (osu_latency's method); posted
// sends and receives are MPI_Isend/MPI_Irecv completed by one MPI_Waitall each (osu_bw,
// osu_bibw). Messages above 1 GiB go as 1 GiB pieces (MPI counts are int).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "comm/errors.hpp"
#include "drivers/raw_driver.hpp"

namespace commbench {

namespace raw_mpi {

constexpr size_t kPiece = size_t{1} << 30;
constexpr int kDataTag = 1, kAckTag = 2;

inline size_t pieces(size_t size) {
  return size <= kPiece ? 1 : (size + kPiece - 1) / kPiece;
}
inline int piece_bytes(size_t size, size_t j) {
  return static_cast<int>(std::min(kPiece, size - j * kPiece));
}

// Out of line: only a failing call gets here.
[[noreturn]] void fail(int rc, const char* what);
inline void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) fail(rc, what);
}

}  // namespace raw_mpi

class RawMpiDriver final : public RawDriver {
 public:
  static constexpr bool kEmptyMessages = true;

  explicit RawMpiDriver(DriverEnv& env) : RawDriver(DriverKind::raw_mpi, kRawMpi, env) {}
  ~RawMpiDriver() override;

  void connect() override;
  void close() override;

  void send(const std::byte* p, size_t n) {
    using namespace raw_mpi;
    for (size_t j = 0, k = pieces(n); j < k; ++j)
      check(MPI_Send(p + j * kPiece, piece_bytes(n, j), MPI_BYTE, peer_, kDataTag, comm_), "send");
  }
  void recv(std::byte* p, size_t n) {
    using namespace raw_mpi;
    for (size_t j = 0, k = pieces(n); j < k; ++j)
      check(MPI_Recv(p + j * kPiece, piece_bytes(n, j), MPI_BYTE, peer_, kDataTag, comm_,
                     MPI_STATUS_IGNORE),
            "recv");
  }
  void send_ack() {
    raw_mpi::check(MPI_Send(&ack_, 1, MPI_CHAR, peer_, raw_mpi::kAckTag, comm_), "send ack");
  }
  void recv_ack() {
    raw_mpi::check(MPI_Recv(&ack_, 1, MPI_CHAR, peer_, raw_mpi::kAckTag, comm_, MPI_STATUS_IGNORE),
                   "recv ack");
  }

  void post_send(const std::byte* p, size_t n) {
    using namespace raw_mpi;
    for (size_t j = 0, k = pieces(n); j < k; ++j) {
      MPI_Request r;
      check(MPI_Isend(p + j * kPiece, piece_bytes(n, j), MPI_BYTE, peer_, kDataTag, comm_, &r),
            "isend");
      sends_.push_back(r);
    }
  }
  void post_recv(std::byte* p, size_t n) {
    using namespace raw_mpi;
    for (size_t j = 0, k = pieces(n); j < k; ++j) {
      MPI_Request r;
      check(MPI_Irecv(p + j * kPiece, piece_bytes(n, j), MPI_BYTE, peer_, kDataTag, comm_, &r),
            "irecv");
      recvs_.push_back(r);
    }
  }
  void wait_sends() { wait_all(sends_); }
  void wait_recvs() { wait_all(recvs_); }

 private:
  static void wait_all(std::vector<MPI_Request>& reqs) {
    raw_mpi::check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
                   "waitall");
    reqs.clear();
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int peer_ = 0;
  char ack_ = 1;
  std::vector<MPI_Request> sends_, recvs_;
};

}  // namespace commbench
