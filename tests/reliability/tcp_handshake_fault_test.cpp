// Byte-exact handshake faults on the TCP backend, from a raw listening socket: a
// listener that accepts and closes, one that never answers, one that answers garbage.
// The connector must fail with the documented error within its timeout.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "comm/errors.hpp"
#include "comm/registry.hpp"
#include "runtime/timeout.hpp"

using namespace commbench;
using namespace std::chrono_literals;

namespace {

enum class Peer { close_at_once, silent, garbage };

// A blocking raw listener on its own thread, treating every connection the same way.
class RawListener {
 public:
  explicit RawListener(Peer how) : how_(how) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    listen(fd_, 64);
    socklen_t len = sizeof sa;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
    port_ = ntohs(sa.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawListener() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
    for (int c : held_) close(c);
  }
  std::string address() const { return "tcp://127.0.0.1:" + std::to_string(port_); }
  int accepted() const { return accepted_; }

 private:
  void serve() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      ++accepted_;
      if (how_ == Peer::close_at_once) {
        close(c);
      } else if (how_ == Peer::garbage) {
        const char junk[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
        (void)!send(c, junk, sizeof junk, MSG_NOSIGNAL);
        held_.push_back(c);
      } else {
        held_.push_back(c);
      }
    }
  }
  Peer how_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::vector<int> held_;
  std::thread thread_;
};

// How a connect to a misbehaving peer failed: the error's message ("WRONG TYPE: ..." for
// an exception other than the expected one), how long it took, how often it was tried.
struct Failure {
  std::string what = "no error";
  std::chrono::milliseconds took{};
  int attempts = 0;
};

template <typename E>
Failure connect_fails_with(Peer how, std::chrono::milliseconds timeout) {
  RawListener raw(how);
  EventLoop loop;
  auto backend = registry().create("tcp", loop);
  auto connector = backend->make_connector();
  auto t0 = std::chrono::steady_clock::now();
  Failure f;
  try {
    loop.run(connector->connect(raw.address(), timeout));
  } catch (const E& e) {
    f.what = e.what();
  } catch (const std::exception& e) {
    f.what = std::string("WRONG TYPE: ") + e.what();
  }
  f.took =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  f.attempts = raw.accepted();
  return f;
}

TEST(TcpHandshakeFault, ListenerClosesDuringHandshakeGivesConnectError) {
  Failure f = connect_fails_with<ConnectError>(Peer::close_at_once, 400ms);
  EXPECT_NE(f.what.find("closed during handshake"), std::string::npos) << f.what;
  EXPECT_GE(f.attempts, 2) << "a close mid-handshake is retried until the timeout";
  EXPECT_LT(f.took, 3s);
}

TEST(TcpHandshakeFault, SilentListenerGivesConnectErrorAtTimeout) {
  Failure f = connect_fails_with<ConnectError>(Peer::silent, 300ms);
  EXPECT_NE(f.what.find("within 300 ms"), std::string::npos) << f.what;
  EXPECT_GE(f.took, 290ms);
  EXPECT_LT(f.took, 3s);
}

TEST(TcpHandshakeFault, NonCommbenchPeerGivesProtocolErrorAtOnce) {
  Failure f = connect_fails_with<ProtocolError>(Peer::garbage, 5000ms);
  EXPECT_NE(f.what.find("magic"), std::string::npos) << f.what;
  EXPECT_EQ(f.attempts, 1);
  EXPECT_LT(f.took, 2s);
}

}  // namespace
