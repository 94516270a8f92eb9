// One TCP connection on the event loop: TCP_NODELAY, a message as one scatter/gather send
// (header + frames), and a staging buffer on the receive side so a small message costs
// one recv() while large frames are received in place. Two data paths, one wire format:
// tcp:epoll tries each non-blocking send/recv and waits for readiness from the loop's
// epoll; tcp:uring (a ring given) submits each send/recv as an io_uring SQE and resumes
// on its CQE, on a blocking socket (the kernel's io_uring waits for readiness itself).
#pragma once

#include <sys/uio.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm/frame_header.hpp"
#include "runtime/async_mutex.hpp"
#include "tcp/uring_ring_fwd.hpp"

namespace commbench::tcp {

class TcpComm final : public Comm {
 public:
  // `ring`: the tcp:uring backend's ring, or null for tcp:epoll.
  TcpComm(EventLoop& loop, int fd, const CommLimits& limits,
          std::shared_ptr<UringRing> ring = nullptr);
  ~TcpComm() override;

  Task<void> write(const Message& msg, CancelToken token = {}) override;
  Task<void> read(Message& into, CancelToken token = {}) override;
  Task<void> close() override;
  void abort() noexcept override;
  bool closed() const noexcept override { return fd_ < 0; }
  // The kernel's descriptor, or -1 once closed (tests look at the socket under it).
  int native_handle() const noexcept { return fd_; }
  std::string local_address() const override { return local_; }
  std::string peer_address() const override { return peer_; }
  std::string peer_id() const override { return peer_id_; }

  // Raw byte I/O for the handshake (before any message).
  Task<void> write_bytes(std::span<const std::byte> bytes, CancelToken token);
  Task<void> read_bytes(std::span<std::byte> out, CancelToken token);
  void set_peer_name(std::string name) { peer_ = std::move(name); }
  void set_peer_id(std::string id) { peer_id_ = std::move(id); }

 private:
  // Receives at least `want` more bytes... into staging; throws CommClosedError at EOF.
  Task<void> fill_staging(size_t want, CancelToken token);
  // Fills `out` completely: first from staging, then straight from the socket.
  Task<void> read_into(std::byte* out, size_t n, CancelToken token);
  Task<void> send_iov(::iovec* iov, size_t count, CancelToken token);
  // The write itself, which write() starts within the call.
  Task<void> write_message(const Message& msg, CancelToken token);
  // What a message needs when the socket is ready, done without a coroutine of its own: a
  // 64 B message's read and write each made three more coroutine frames than this
  // (results/layer-2026-11-30), and the frames cost more than the work in them.
  // send_ready: sendmsg until everything went (true) or the socket is full (false; iov and
  // count then name the rest). Not for io_uring, which sends through the ring.
  bool send_ready(::iovec*& iov, size_t& count);
  // Whether `want` unread bytes are staged already (fill_staging has nothing to do).
  bool staged(size_t want) const noexcept { return end_ - begin_ >= want; }
  // Copies a frame that is wholly in staging into `out` (false, nothing taken, if not).
  bool take_staged(std::byte* out, size_t n) noexcept;
  // One non-blocking recv, which the event loop also makes as the read's probe (tcp_comm.cpp).
  struct RecvAttempt;
  // The bytes a finished attempt received (> 0); fails the comm at end of stream (`eof_why`)
  // or on an error.
  size_t taken(const RecvAttempt& r, const char* eof_why);
  [[noreturn]] void fail(const std::string& why);
  void check_open(const char* op) const;
  // Ends whatever the ring still has in flight on the socket, before it is closed.
  void cancel_ring_ops() noexcept;

  EventLoop& loop_;
  int fd_;
  CommLimits limits_;
  std::shared_ptr<UringRing> ring_;  // keeps the ring alive while this comm may use it
  std::string local_;
  std::string peer_id_;  // what the peer's hello claimed (Comm::peer_id)
  std::string peer_;
  AsyncMutex write_lock_;
  AsyncMutex read_lock_;
  std::vector<std::byte> header_out_;
  std::vector<::iovec> iov_;
  std::vector<FrameInfo> frames_in_;
  std::unique_ptr<std::byte[]> staging_;
  size_t staging_size_;
  size_t begin_ = 0;  // unread bytes are staging_[begin_, end_)
  size_t end_ = 0;
};

}  // namespace commbench::tcp
