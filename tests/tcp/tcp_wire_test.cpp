// What a hostile or broken TCP peer can do to a listener: corrupt headers, frames beyond
// the limits, a message cut off mid-frame, a bad handshake. The peer here is a plain
// blocking socket speaking bytes, so every case is exact. Every tcp progress policy: each
// has its own receive path (epoll readiness, io_uring completions).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "comm/errors.hpp"
#include "comm/frame_header.hpp"
#include "comm/handshake.hpp"
#include "comm/registry.hpp"
#include "runtime/timeout.hpp"
#include "tcp/socket_util.hpp"

using namespace commbench;
using namespace std::chrono_literals;

namespace {

class TcpWire : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    BackendOptions o;
    o.progress = GetParam();
    o.limits.max_frame_bytes = 1 << 20;
    o.limits.max_message_bytes = 2 << 20;
    o.limits.max_frames = 16;
    try {
      backend_ = registry().create("tcp", loop_, o);
    } catch (const BackendUnavailable& e) {
      GTEST_SKIP() << e.what();
    }
    listener_ = backend_->make_listener("tcp://127.0.0.1:0");
    loop_.run(listener_->start([this](std::unique_ptr<Comm> c) -> Task<void> {
      server_ = std::move(c);
      co_return;
    }));
    port_ = parse_host_port(parse_address(listener_->contact_address()).location).port;
  }
  void TearDown() override {
    if (raw_ >= 0) close(raw_);
    if (!listener_) return;  // skipped
    listener_->stop();
    loop_.run_for(std::chrono::milliseconds(2));  // let the cancelled accept loop unwind
  }

  // A raw client that completes the handshake, so what follows reaches read().
  void raw_connect(bool valid_hello = true) {
    raw_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port_);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(raw_, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    auto hello = encode_hello(Hello{kHelloVersion, "raw-test-peer", {}, ""});
    if (!valid_hello) hello[0] = std::byte{0};
    send_bytes(hello);
    if (!valid_hello) return;
    loop_.run(with_timeout(loop_, 5s, [this](CancelToken t) -> Task<void> {
      while (!server_) co_await loop_.sleep_for(1ms, t);
    }));
  }
  void send_bytes(const std::vector<std::byte>& b) {
    ASSERT_EQ(send(raw_, b.data(), b.size(), MSG_NOSIGNAL), static_cast<ssize_t>(b.size()));
  }
  std::vector<std::byte> header(const std::vector<uint64_t>& sizes) {
    std::vector<std::byte> h(header_bytes(sizes.size()));
    Message m;
    for (auto s : sizes) m.frames.push_back(Buffer{nullptr, s, MemoryKind::host});
    CommLimits big;  // encode with generous limits: we want to send what the server refuses
    big.max_frame_bytes = big.max_message_bytes = 1ull << 50;
    big.max_frames = 1 << 20;
    encode_header(m, h, big);
    return h;
  }
  // Runs a server read and returns the exception type's name it ended with.
  template <typename E>
  bool read_fails_with() {
    try {
      loop_.run(with_timeout(loop_, 5s, [this](CancelToken t) -> Task<void> {
        Message m;
        co_await server_->read(m, t);
      }));
    } catch (const E&) {
      return true;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected error: " << e.what();
    }
    return false;
  }

  EventLoop loop_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<Comm> server_;
  uint16_t port_ = 0;
  int raw_ = -1;
};

TEST_P(TcpWire, CorruptMagicIsProtocolError) {
  raw_connect();
  auto h = header({4});
  h[0] = std::byte{'Z'};
  send_bytes(h);
  EXPECT_TRUE(read_fails_with<ProtocolError>());
  EXPECT_TRUE(server_->closed());  // a stream out of step is not reused
}

TEST_P(TcpWire, OversizedFrameIsRefusedWithoutAllocating) {
  raw_connect();
  send_bytes(header({1ull << 40}));  // 1 TiB announced; limit is 1 MiB
  EXPECT_TRUE(read_fails_with<ProtocolError>());
}

TEST_P(TcpWire, TooManyFramesIsProtocolError) {
  raw_connect();
  send_bytes(header(std::vector<uint64_t>(17, 1)));
  EXPECT_TRUE(read_fails_with<ProtocolError>());
}

TEST_P(TcpWire, PeerClosingMidMessageIsCommClosed) {
  raw_connect();
  auto h = header({1000});
  std::vector<std::byte> half(500, std::byte{1});
  h.insert(h.end(), half.begin(), half.end());
  send_bytes(h);
  close(raw_);
  raw_ = -1;
  EXPECT_TRUE(read_fails_with<CommClosedError>());
}

// The same past the staging buffer: a large frame is received straight into the message
// (with MSG_WAITALL under io_uring), and the peer's close after part of it is still a
// close, not a short frame.
TEST_P(TcpWire, PeerClosingMidLargeFrameIsCommClosed) {
  raw_connect();
  auto h = header({1 << 20});
  std::vector<std::byte> part(300 * 1024, std::byte{2});
  h.insert(h.end(), part.begin(), part.end());
  std::thread peer([&] {
    send_bytes(h);
    ::shutdown(raw_, SHUT_WR);
  });
  EXPECT_TRUE(read_fails_with<CommClosedError>());
  peer.join();
}

TEST_P(TcpWire, BadHandshakeNeverReachesTheHandler) {
  raw_connect(false);
  char buf[16];
  timeval tv{5, 0};
  setsockopt(raw_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  // Drive the loop while the raw peer waits to be dropped.
  std::thread peer([&] { EXPECT_LE(recv(raw_, buf, sizeof buf, 0), 0); });
  loop_.run_for(100ms);
  peer.join();
  EXPECT_EQ(server_, nullptr);
}

std::vector<std::string> tcp_policies() {
  std::vector<std::string> out;
  for (const auto& p : registry().info("tcp").progress_policies) out.push_back(p.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Policies, TcpWire, ::testing::ValuesIn(tcp_policies()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
