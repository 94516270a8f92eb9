// raw-tcp: the TCP baseline without the coroutine layer. Blocking sockets with
// TCP_NODELAY, exactly `size` bytes per message and no header (NetPIPE's method).
// Sockets have no nonblocking calls here: a posted send or receive waits in a queue and
// the wait performs it with the blocking call; when receives are awaited while sends are
// still queued (bidirectional bandwidth), the sends go from a second thread, so neither
// side blocks the other.
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

#include "comm/errors.hpp"
#include "drivers/raw_driver.hpp"
#include "tcp/socket_util.hpp"

namespace commbench {

namespace raw_tcp {

inline void send_all(int fd, const std::byte* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw CommClosedError(tcp::errno_message("raw-tcp send", errno));
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
}

inline void recv_all(int fd, std::byte* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::recv(fd, p, n, 0);
    if (k == 0) throw CommClosedError("raw-tcp: peer closed the connection");
    if (k < 0) {
      if (errno == EINTR) continue;
      throw CommClosedError(tcp::errno_message("raw-tcp recv", errno));
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
}

}  // namespace raw_tcp

class RawTcpDriver final : public RawDriver {
 public:
  static constexpr bool kEmptyMessages = false;  // a 0-byte send() carries nothing to wait for

  explicit RawTcpDriver(DriverEnv& env) : RawDriver(DriverKind::raw_tcp, kRawTcp, env) {}
  ~RawTcpDriver() override { close(); }

  void connect() override;
  void close() override;

  void send(const std::byte* p, size_t n) { raw_tcp::send_all(fd_.get(), p, n); }
  void recv(std::byte* p, size_t n) { raw_tcp::recv_all(fd_.get(), p, n); }
  void send_ack() { send(&ack_, 1); }
  void recv_ack() { recv(&ack_, 1); }

  void post_send(const std::byte* p, size_t n) { sends_.push_back({p, n}); }
  void post_recv(std::byte* p, size_t n) { recvs_.push_back({p, n}); }
  void wait_recvs() {
    if (!sends_.empty()) start_sender();
    for (auto [p, n] : recvs_) recv(p, n);
    recvs_.clear();
  }
  void wait_sends() {
    if (sender_.joinable()) join_sender();
    for (auto [p, n] : sends_) send(p, n);
    sends_.clear();
  }

 private:
  void start_sender();
  void join_sender();

  tcp::FdGuard fd_;
  std::byte ack_{1};
  std::vector<std::pair<const std::byte*, size_t>> sends_, sending_;
  std::vector<std::pair<std::byte*, size_t>> recvs_;
  std::thread sender_;  // sends `sending_` while this thread receives
  std::exception_ptr sender_error_;
};

}  // namespace commbench
