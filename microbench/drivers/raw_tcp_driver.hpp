// raw-tcp: the TCP baseline without the coroutine layer. One socket with TCP_NODELAY,
// exactly `size` bytes per message and no header. Two variants (raw_baselines.hpp):
//  - blocking (NetPIPE's method): send/recv sleep in the kernel until done. Sockets have
//    no nonblocking calls then: a posted send or receive waits in a queue and the wait
//    performs it with the blocking call; when receives are awaited while sends are still
//    queued (bidirectional bandwidth), the sends go from a second thread, so neither side
//    blocks the other.
//  - busy-poll: every call carries MSG_DONTWAIT and is retried on EAGAIN, so a receiver
//    that waits spins in user space and never pays the wake-up of a sleeping recv (the
//    coroutine TCP backend spins before it blocks in epoll, which made it faster than the
//    blocking baseline at 1 B-4 KiB). A window progresses its queued sends and receives
//    together in this thread, so no second thread is needed.
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <exception>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "comm/errors.hpp"
#include "drivers/raw_driver.hpp"
#include "harness/progress_ticks.hpp"
#include "harness/stray_peer.hpp"
#include "tcp/socket_util.hpp"

namespace commbench {

namespace raw_tcp {

// One non-blocking (MSG_DONTWAIT) or blocking (0) attempt; the bytes moved, 0 when the
// socket would block. Throws when the connection is gone. Received bytes are progress for
// the stall watchdog (a spin that moves nothing is not); sends are not counted: every
// pattern ends in a receive (the echo, the window's ack), and in the bidirectional run the
// sender thread would otherwise write the same counter from a second core in the timed loop.
inline size_t send_some(int fd, const std::byte* p, size_t n, int flags) {
  ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL | flags);
  if (k >= 0) return static_cast<size_t>(k);
  if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return 0;
  throw CommClosedError(tcp::errno_message("raw-tcp send", errno));
}

inline size_t recv_some(int fd, std::byte* p, size_t n, int flags) {
  ssize_t k = ::recv(fd, p, n, flags);
  if (k > 0) {
    progress::tick();
    return static_cast<size_t>(k);
  }
  if (k == 0) throw CommClosedError("raw-tcp: peer closed the connection");
  if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return 0;
  throw CommClosedError(tcp::errno_message("raw-tcp recv", errno));
}

// Loops until all `n` bytes moved: with MSG_DONTWAIT this is the spin.
inline void send_all(int fd, const std::byte* p, size_t n, int flags) {
  while (n > 0) {
    size_t k = send_some(fd, p, n, flags);
    p += k;
    n -= k;
  }
}

inline void recv_all(int fd, std::byte* p, size_t n, int flags) {
  while (n > 0) {
    size_t k = recv_some(fd, p, n, flags);
    p += k;
    n -= k;
  }
}

// Posted messages of one direction, and how far the first unfinished one got.
template <typename Byte>
struct Queue {
  std::vector<std::pair<Byte*, size_t>> items;
  size_t next = 0;  // first message not yet complete
  size_t at = 0;    // bytes of it already moved

  bool done() const { return next == items.size(); }
  void clear() {
    items.clear();
    next = at = 0;
  }
  // Moves what `io(ptr, len)` takes now; io returns the bytes it moved (0: would block).
  template <typename Io>
  void step(Io&& io) {
    while (!done()) {
      auto [p, n] = items[next];
      size_t k = n > at ? io(p + at, n - at) : 0;
      at += k;
      if (at < n) return;
      ++next;
      at = 0;
    }
  }
};

}  // namespace raw_tcp

class RawTcpDriver final : public RawDriver {
 public:
  static constexpr const RawBaseline& kBaseline = kRawTcp;
  static constexpr bool kEmptyMessages = false;  // a 0-byte send() carries nothing to wait for

  RawTcpDriver(DriverEnv& env, const RawVariant& variant);
  ~RawTcpDriver() override { close(); }

  void connect() override;
  void close() override;

  void send(const std::byte* p, size_t n) { raw_tcp::send_all(fd_.get(), p, n, flags_); }
  void recv(std::byte* p, size_t n) { raw_tcp::recv_all(fd_.get(), p, n, flags_); }
  void send_ack() { send(&ack_, 1); }
  void recv_ack() { recv(&ack_, 1); }

  void post_send(const std::byte* p, size_t n) { sends_.items.push_back({p, n}); }
  void post_recv(std::byte* p, size_t n) { recvs_.items.push_back({p, n}); }
  void wait_recvs() {
    if (polling()) {
      // Both directions in turn, never waiting: the peer drains our sends while we drain
      // its, whatever the socket buffers hold.
      while (!recvs_.done()) {
        step_sends();
        recvs_.step(
            [&](std::byte* p, size_t n) { return raw_tcp::recv_some(fd_.get(), p, n, flags_); });
      }
    } else {
      if (!sends_.done()) start_sender();
      for (auto [p, n] : recvs_.items) recv(p, n);
    }
    recvs_.clear();
  }
  void wait_sends() {
    if (sender_.joinable()) join_sender();
    while (!sends_.done()) step_sends();
    sends_.clear();
  }

 private:
  bool polling() const { return flags_ != 0; }
  void step_sends() {
    sends_.step(
        [&](const std::byte* p, size_t n) { return raw_tcp::send_some(fd_.get(), p, n, flags_); });
  }
  void start_sender();
  void join_sender();

  int flags_ = 0;  // MSG_DONTWAIT for busy-poll: every call returns at once
  tcp::FdGuard fd_;
  std::byte ack_{1};
  raw_tcp::Queue<const std::byte> sends_, sending_;
  raw_tcp::Queue<std::byte> recvs_;
  std::thread sender_;  // blocking variant: sends `sending_` while this thread receives
  std::exception_ptr sender_error_;
  std::unique_ptr<StrayPeer> stray_;  // --test-stray, on a rank >= 2
};

}  // namespace commbench
