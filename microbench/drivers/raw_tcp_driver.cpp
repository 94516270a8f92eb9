// raw-tcp: the TCP baseline without the coroutine layer. Blocking sockets with
// TCP_NODELAY, exactly `size` bytes per message and no header (NetPIPE's method);
// bidirectional bandwidth sends from a second thread so neither side blocks the other.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "comm/address.hpp"
#include "comm/errors.hpp"
#include "drivers/driver.hpp"
#include "drivers/raw_baselines.hpp"
#include "drivers/window_buffers.hpp"
#include "harness/pattern.hpp"
#include "tcp/socket_util.hpp"

namespace commbench {

namespace {

using tcp::errno_message;
using tcp::FdGuard;

void send_all(int fd, const void* p, size_t n) {
  auto* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t k = ::send(fd, c, n, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw CommClosedError(errno_message("raw-tcp send", errno));
    }
    c += k;
    n -= static_cast<size_t>(k);
  }
}

void recv_all(int fd, void* p, size_t n) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t k = ::recv(fd, c, n, 0);
    if (k == 0) throw CommClosedError("raw-tcp: peer closed the connection");
    if (k < 0) {
      if (errno == EINTR) continue;
      throw CommClosedError(errno_message("raw-tcp recv", errno));
    }
    c += k;
    n -= static_cast<size_t>(k);
  }
}

class RawTcpDriver final : public Driver {
 public:
  explicit RawTcpDriver(DriverEnv& env) : env_(env) {}
  std::string backend() const override { return kRawTcp.name; }
  std::string progress() const override { return kRawTcp.policy; }

  void connect() override {
    int rank = env_.boot.rank();
    std::string contact;
    FdGuard listener;
    if (rank == 1) {
      socklen_t len = 0;
      sockaddr_storage sa = tcp::resolve(HostPort{env_.host, 0}, len);
      listener = FdGuard(::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0 ||
          ::listen(listener.get(), 1) != 0)
        throw CommError(errno_message("raw-tcp listen", errno));
      HostPort bound = tcp::local_endpoint(listener.get());
      contact = format_host_port(env_.host, bound.port);
    }
    auto all = env_.boot.allgather(contact);
    if (rank == 0) {
      HostPort hp = parse_host_port(all[1]);
      auto deadline =
          std::chrono::steady_clock::now() +
          std::chrono::milliseconds(static_cast<long>(env_.opts.connect_timeout_s * 1000));
      for (;;) {
        socklen_t len = 0;
        sockaddr_storage sa = tcp::resolve(hp, len);
        FdGuard fd(::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) == 0) {
          fd_ = std::move(fd);
          break;
        }
        if (std::chrono::steady_clock::now() > deadline)
          throw ConnectError("raw-tcp: cannot connect to " + all[1] + ": " +
                             errno_message("connect", errno));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    } else if (rank == 1) {
      fd_ = FdGuard(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (fd_.get() < 0) throw CommError(errno_message("raw-tcp accept", errno));
    }
    if (fd_.get() >= 0) tcp::set_nodelay(fd_.get());
  }

  void prepare(size_t max_size) override {
    send_.assign(std::max<size_t>(max_size, 1), std::byte{0});
    recv_.assign(std::max<size_t>(max_size, 1), std::byte{0});
  }

  size_t pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                  uint64_t* samples) override {
    int rank = env_.boot.rank();
    if (rank > 1) return 0;
    if (size == 0) throw std::invalid_argument("raw-tcp cannot measure 0-byte messages (use -b 1)");
    int fd = fd_.get();
    size_t wrong = 0;
    for (size_t i = 0; i < iters; ++i) {
      uint64_t mine = seed + 2 * i + (rank == 0 ? 0 : 1);
      uint64_t theirs = seed + 2 * i + (rank == 0 ? 1 : 0);
      if (validate) fill_pattern(send_.data(), size, mine);
      if (rank == 0) {
        uint64_t t0 = EventLoop::now_ns();
        send_all(fd, send_.data(), size);
        recv_all(fd, recv_.data(), size);
        samples[i] = EventLoop::now_ns() - t0;
      } else {
        recv_all(fd, recv_.data(), size);
        if (validate) wrong += check_pattern(recv_.data(), size, theirs);
        send_all(fd, send_.data(), size);
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
    if (size == 0) throw std::invalid_argument("raw-tcp cannot measure 0-byte messages (use -b 1)");
    int fd = fd_.get();
    rx_.prepare(size, window, env_.opts.shared_recv_buffer && !validate);
    size_t wrong = 0;
    char ack = 1;
    for (size_t i = 0; i < iters; ++i) {
      if (validate) fill_pattern(send_.data(), size, seed + i);
      auto receive = [&] {
        for (size_t j = 0; j < window; ++j) {
          std::byte* buf = rx_[j];
          recv_all(fd, buf, size);
          if (validate) wrong += check_pattern(buf, size, seed + i);
        }
      };
      auto send = [&] {
        for (size_t j = 0; j < window; ++j) send_all(fd, send_.data(), size);
      };
      if (bidir) {
        std::thread sender(send);
        receive();
        sender.join();
      } else if (rank == 0) {
        send();
        recv_all(fd, &ack, 1);
      } else {
        receive();
        send_all(fd, &ack, 1);
      }
    }
    return wrong;
  }

  void close() override { fd_ = FdGuard(); }

 private:
  DriverEnv& env_;
  FdGuard fd_;
  std::vector<std::byte> send_, recv_;
  WindowBuffers rx_;
};

}  // namespace

std::unique_ptr<Driver> make_raw_tcp_driver(DriverEnv& env) {
  return std::make_unique<RawTcpDriver>(env);
}

}  // namespace commbench
