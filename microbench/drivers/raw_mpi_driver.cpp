// raw-mpi: the MPI baseline without the coroutine layer, on a private duplicate of
// MPI_COMM_WORLD. Ping-pong is blocking MPI_Send/MPI_Recv (osu_latency's method);
// bandwidth is a window of MPI_Isend + MPI_Waitall answered by a 1-byte ack (osu_bw),
// or, bidirectional, both ranks post a window of receives and sends at once (osu_bibw).
// Messages above 1 GiB go as 1 GiB pieces (MPI counts are int). A window's receive
// buffers are WindowBuffers (one per message in flight, or OSU's one shared buffer);
// --validate checks every byte of every message.
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "comm/errors.hpp"
#include "drivers/driver.hpp"
#include "drivers/raw_baselines.hpp"
#include "drivers/window_buffers.hpp"
#include "harness/pattern.hpp"

namespace commbench {

namespace {

constexpr size_t kPiece = 1ull << 30;
constexpr int kDataTag = 1, kAckTag = 2;

size_t pieces(size_t size) {
  return size <= kPiece ? 1 : (size + kPiece - 1) / kPiece;
}
int piece_bytes(size_t size, size_t j) {
  return static_cast<int>(std::min(kPiece, size - j * kPiece));
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw CommError(std::string("raw-mpi ") + what + ": " +
                  std::string(text, static_cast<size_t>(len)));
}

class RawMpiDriver final : public Driver {
 public:
  explicit RawMpiDriver(DriverEnv& env) : env_(env) {}
  ~RawMpiDriver() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
  }
  std::string backend() const override { return kRawMpi.name; }
  std::string progress() const override { return kRawMpi.policy; }

  void connect() override {
    // Collective over every rank; ranks >= 2 take part in it and then idle.
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    peer_ = env_.boot.rank() == 0 ? 1 : 0;
  }

  void prepare(size_t max_size) override {
    send_.assign(std::max<size_t>(max_size, 1), std::byte{0});
    recv_.assign(std::max<size_t>(max_size, 1), std::byte{0});
  }

  size_t pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                  uint64_t* samples) override {
    int rank = env_.boot.rank();
    if (rank > 1) return 0;
    size_t wrong = 0;
    for (size_t i = 0; i < iters; ++i) {
      uint64_t mine = seed + 2 * i + (rank == 0 ? 0 : 1);
      uint64_t theirs = seed + 2 * i + (rank == 0 ? 1 : 0);
      if (validate) fill_pattern(send_.data(), size, mine);
      if (rank == 0) {
        uint64_t t0 = EventLoop::now_ns();
        send(size);
        recv(size);
        samples[i] = EventLoop::now_ns() - t0;
      } else {
        recv(size);
        if (validate) wrong += check_pattern(recv_.data(), size, theirs);
        send(size);
        continue;
      }
      if (validate) wrong += check_pattern(recv_.data(), size, theirs);
    }
    return wrong;
  }

  size_t bandwidth(size_t size, size_t iters, size_t window, bool bidir, uint64_t seed,
                   bool validate) override {
    int rank = env_.boot.rank();
    if (rank > 1) return 0;
    size_t slots = rx_.prepare(size, window, env_.opts.shared_recv_buffer && !validate);
    size_t wrong = 0;
    char ack = 1;
    for (size_t i = 0; i < iters; ++i) {
      if (validate) fill_pattern(send_.data(), size, seed + i);
      if (bidir) {
        reqs_.clear();
        post_sends(size, window);
        wrong += receive_window(size, window, slots, seed + i, validate);
        check(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE),
              "waitall");
      } else if (rank == 0) {
        reqs_.clear();
        post_sends(size, window);
        check(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE),
              "waitall");
        check(MPI_Recv(&ack, 1, MPI_CHAR, peer_, kAckTag, comm_, MPI_STATUS_IGNORE), "recv ack");
      } else {
        wrong += receive_window(size, window, slots, seed + i, validate);
        check(MPI_Send(&ack, 1, MPI_CHAR, peer_, kAckTag, comm_), "send ack");
      }
    }
    return wrong;
  }

  void close() override {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }

 private:
  void send(size_t size) {
    for (size_t j = 0, n = pieces(size); j < n; ++j)
      check(MPI_Send(send_.data() + j * kPiece, piece_bytes(size, j), MPI_BYTE, peer_, kDataTag,
                     comm_),
            "send");
  }
  void recv(size_t size) {
    for (size_t j = 0, n = pieces(size); j < n; ++j)
      check(MPI_Recv(recv_.data() + j * kPiece, piece_bytes(size, j), MPI_BYTE, peer_, kDataTag,
                     comm_, MPI_STATUS_IGNORE),
            "recv");
  }
  void post_sends(size_t size, size_t window) {
    for (size_t w = 0; w < window; ++w)
      for (size_t j = 0, n = pieces(size); j < n; ++j) {
        MPI_Request r;
        check(MPI_Isend(send_.data() + j * kPiece, piece_bytes(size, j), MPI_BYTE, peer_, kDataTag,
                        comm_, &r),
              "isend");
        reqs_.push_back(r);
      }
  }
  // Posts the window's receives, `slots` at a time, and waits for each batch.
  size_t receive_window(size_t size, size_t window, size_t slots, uint64_t seed, bool validate) {
    size_t wrong = 0;
    std::vector<MPI_Request>& rr = rreqs_;
    for (size_t done = 0; done < window;) {
      size_t batch = std::min(slots, window - done);
      rr.clear();
      for (size_t w = 0; w < batch; ++w) {
        std::byte* buf = rx_[w];
        for (size_t j = 0, n = pieces(size); j < n; ++j) {
          MPI_Request r;
          check(MPI_Irecv(buf + j * kPiece, piece_bytes(size, j), MPI_BYTE, peer_, kDataTag, comm_,
                          &r),
                "irecv");
          rr.push_back(r);
        }
      }
      check(MPI_Waitall(static_cast<int>(rr.size()), rr.data(), MPI_STATUSES_IGNORE), "waitall");
      if (validate)
        for (size_t w = 0; w < batch; ++w) wrong += check_pattern(rx_[w], size, seed);
      done += batch;
    }
    return wrong;
  }

  DriverEnv& env_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int peer_ = 0;
  std::vector<std::byte> send_, recv_;
  WindowBuffers rx_;
  std::vector<MPI_Request> reqs_, rreqs_;
};

}  // namespace

std::unique_ptr<Driver> make_raw_mpi_driver(DriverEnv& env) {
  return std::make_unique<RawMpiDriver>(env);
}

}  // namespace commbench
