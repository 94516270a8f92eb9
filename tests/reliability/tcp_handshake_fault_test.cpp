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

template <typename E>
std::string connect_fails_with(Peer how, std::chrono::milliseconds timeout,
                               std::chrono::milliseconds* took, int* attempts) {
  RawListener raw(how);
  EventLoop loop;
  auto backend = registry().create("tcp", loop);
  auto connector = backend->make_connector();
  auto t0 = std::chrono::steady_clock::now();
  std::string what = "no error";
  try {
    loop.run(connector->connect(raw.address(), timeout));
  } catch (const E& e) {
    what = e.what();
  } catch (const std::exception& e) {
    what = std::string("WRONG TYPE: ") + e.what();
  }
  *took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  *attempts = raw.accepted();
  return what;
}

TEST(TcpHandshakeFault, ListenerClosesDuringHandshakeGivesConnectError) {
  std::chrono::milliseconds took{};
  int attempts = 0;
  std::string what = connect_fails_with<ConnectError>(Peer::close_at_once, 400ms, &took, &attempts);
  EXPECT_NE(what.find("closed during handshake"), std::string::npos) << what;
  EXPECT_GE(attempts, 2) << "a close mid-handshake is retried until the timeout";
  EXPECT_LT(took, 3s);
}

TEST(TcpHandshakeFault, SilentListenerGivesConnectErrorAtTimeout) {
  std::chrono::milliseconds took{};
  int attempts = 0;
  std::string what = connect_fails_with<ConnectError>(Peer::silent, 300ms, &took, &attempts);
  EXPECT_NE(what.find("within 300 ms"), std::string::npos) << what;
  EXPECT_GE(took, 290ms);
  EXPECT_LT(took, 3s);
}

TEST(TcpHandshakeFault, NonCommbenchPeerGivesProtocolErrorAtOnce) {
  std::chrono::milliseconds took{};
  int attempts = 0;
  std::string what = connect_fails_with<ProtocolError>(Peer::garbage, 5000ms, &took, &attempts);
  EXPECT_NE(what.find("magic"), std::string::npos) << what;
  EXPECT_EQ(attempts, 1);
  EXPECT_LT(took, 2s);
}

}  // namespace
