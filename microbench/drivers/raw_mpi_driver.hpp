// raw-mpi: the MPI baseline without the coroutine layer, on a private duplicate of
// MPI_COMM_WORLD. Variant blocking: send/recv are blocking MPI_Send/MPI_Recv (osu_latency's
// method); posted sends and receives are MPI_Isend/MPI_Irecv completed by one MPI_Waitall
// each (osu_bw, osu_bibw). Variant test: every call is MPI_Isend/MPI_Irecv and a spin on
// MPI_Test (MPI_Testall for a window), the request API every coroutine policy must use.
// Messages above 1 GiB go as 1 GiB pieces (MPI counts are int).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "comm/errors.hpp"
#include "drivers/raw_driver.hpp"
#include "harness/progress_ticks.hpp"

namespace commbench {

namespace raw_mpi {

constexpr size_t kPiece = size_t{1} << 30;
constexpr int kDataTag = 1, kAckTag = 2;

// Calls call(offset, bytes) for each piece of a message of `size` bytes, in order: one
// piece up to 1 GiB (an empty message is one empty piece).
template <typename Call>
inline void for_pieces(size_t size, Call&& call) {
  size_t at = 0;
  do {
    call(at, static_cast<int>(std::min(kPiece, size - at)));
    at += kPiece;
  } while (at < size);
}

// Out of line: only a failing call gets here.
[[noreturn]] void fail(int rc, const char* what);
inline void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) fail(rc, what);
}

}  // namespace raw_mpi

class RawMpiDriver final : public RawDriver {
 public:
  static constexpr const RawBaseline& kBaseline = kRawMpi;
  static constexpr bool kEmptyMessages = true;

  RawMpiDriver(DriverEnv& env, const RawVariant& variant)
      : RawDriver(kBaseline, variant, env), tests_(std::string_view(variant.name) == "test") {}
  ~RawMpiDriver() override;

  void connect() override;
  void close() override;

  // Every completed call is progress for the stall watchdog; a window's MPI_Waitall is one
  // (the watchdog allows a window's worth of time for it).
  void send(const std::byte* p, size_t n) {
    raw_mpi::for_pieces(n, [&](size_t at, int bytes) {
      send_one(p + at, bytes, MPI_BYTE, raw_mpi::kDataTag, "send");
    });
  }
  void recv(std::byte* p, size_t n) {
    raw_mpi::for_pieces(n, [&](size_t at, int bytes) {
      recv_one(p + at, bytes, MPI_BYTE, raw_mpi::kDataTag, "recv");
    });
  }
  void send_ack() { send_one(&ack_, 1, MPI_CHAR, raw_mpi::kAckTag, "send ack"); }
  void recv_ack() { recv_one(&ack_, 1, MPI_CHAR, raw_mpi::kAckTag, "recv ack"); }

  void post_send(const std::byte* p, size_t n) {
    raw_mpi::for_pieces(n, [&](size_t at, int bytes) {
      raw_mpi::check(MPI_Isend(p + at, bytes, MPI_BYTE, peer_, raw_mpi::kDataTag, comm_,
                               &sends_.emplace_back()),
                     "isend");
    });
  }
  void post_recv(std::byte* p, size_t n) {
    raw_mpi::for_pieces(n, [&](size_t at, int bytes) {
      raw_mpi::check(MPI_Irecv(p + at, bytes, MPI_BYTE, peer_, raw_mpi::kDataTag, comm_,
                               &recvs_.emplace_back()),
                     "irecv");
    });
  }
  void wait_sends() { wait_all(sends_); }
  void wait_recvs() { wait_all(recvs_); }

 private:
  void wait_all(std::vector<MPI_Request>& reqs) const {
    if (tests_) {
      for (int done = 0; !done;)
        raw_mpi::check(
            MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE),
            "testall");
    } else {
      raw_mpi::check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
                     "waitall");
    }
    progress::tick();
    reqs.clear();
  }
  // One blocking call (variant blocking), or the same call as a request spun on with
  // MPI_Test (variant test); either way one tick for the watchdog.
  void send_one(const void* p, int count, MPI_Datatype type, int tag, const char* what) {
    if (tests_) {
      MPI_Request r;
      raw_mpi::check(MPI_Isend(p, count, type, peer_, tag, comm_, &r), what);
      spin(r, what);
    } else {
      raw_mpi::check(MPI_Send(p, count, type, peer_, tag, comm_), what);
    }
    progress::tick();
  }
  void recv_one(void* p, int count, MPI_Datatype type, int tag, const char* what) {
    if (tests_) {
      MPI_Request r;
      raw_mpi::check(MPI_Irecv(p, count, type, peer_, tag, comm_, &r), what);
      spin(r, what);
    } else {
      raw_mpi::check(MPI_Recv(p, count, type, peer_, tag, comm_, MPI_STATUS_IGNORE), what);
    }
    progress::tick();
  }
  static void spin(MPI_Request& r, const char* what) {
    for (int done = 0; !done;) raw_mpi::check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), what);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int peer_ = 0;
  char ack_ = 1;
  std::vector<MPI_Request> sends_, recvs_;
  bool tests_;  // variant test: MPI_Test spins instead of blocking calls
};

}  // namespace commbench
