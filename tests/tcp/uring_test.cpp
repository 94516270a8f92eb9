// tcp:uring specifics (backends/tcp/uring_ring.hpp): an op's buffer belongs to the kernel
// until the op's CQE is reaped, whether the op was cancelled or its frame destroyed; and
// messages far larger than the socket buffers go through whole. The comm, fault and load
// suites run tcp:uring like every policy; these are the cases only a ring has.
#include <gtest/gtest.h>

#if COMMBENCH_HAVE_URING

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <memory>

#include "comm/errors.hpp"
#include "loop_fixture.hpp"
#include "pattern_message.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"
#include "tcp/tcp_comm.hpp"
#include "tcp/uring_ring.hpp"

using namespace commbench;
using namespace commbench::testing;
using namespace std::chrono_literals;

namespace {

constexpr auto kCanary = std::byte{0xAB};

// Parameters, not lambda captures: they live in the frame for as long as the op does.
Task<void> recv_into(tcp::UringRing& ring, int fd, std::byte* buf, size_t n, CancelToken t) {
  (void)co_await ring.recv(fd, buf, n, 0, t);
}

class UringRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_), 0);
    try {
      ring_ = tcp::UringRing::create(loop_);
    } catch (const BackendUnavailable& e) {
      GTEST_SKIP() << e.what();
    }
  }
  void TearDown() override {
    ring_.reset();
    for (int fd : fds_) ::close(fd);
  }
  // Sends 5 bytes into the idle end and checks they are still in the socket: no
  // receive that was cancelled (or abandoned) took them into its buffer.
  void expect_bytes_left_in_socket() {
    ASSERT_EQ(::send(fds_[1], "hello", 5, 0), 5);
    loop_.run_for(5ms);  // any CQE still to come would be reaped here
    char got[16];
    EXPECT_EQ(::recv(fds_[0], got, sizeof got, MSG_DONTWAIT), 5);
  }

  EventLoop loop_;
  std::shared_ptr<tcp::UringRing> ring_;
  int fds_[2] = {-1, -1};
};

// A receive cancelled by its deadline resumes only once its own CQE (-ECANCELED) is
// reaped, so the buffer can be freed right after: nothing writes into it later.
TEST_F(UringRingTest, CancelledReceiveResumesOnlyAfterItsCqe) {
  auto buf = std::make_unique<std::array<std::byte, 64>>();
  buf->fill(kCanary);
  bool timed_out = false;
  bool ring_idle_at_resume = false;
  loop_.run([&]() -> Task<void> {
    try {
      co_await with_timeout(loop_, 20ms, [&](CancelToken t) {
        return recv_into(*ring_, fds_[0], buf->data(), buf->size(), t);
      });
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    ring_idle_at_resume = !ring_->has_work();
  }());
  EXPECT_TRUE(timed_out);
  EXPECT_TRUE(ring_idle_at_resume) << "resumed while the kernel still held the buffer";
  EXPECT_TRUE(std::all_of(buf->begin(), buf->end(), [](std::byte b) { return b == kCanary; }));
  buf.reset();
  expect_bytes_left_in_socket();
}

// A frame destroyed while its receive is in flight (a Task dropped unfinished) cancels
// the op and waits for its CQE before the buffer goes.
TEST_F(UringRingTest, OpDestroyedInFlightWaitsForItsCqe) {
  std::array<std::byte, 64> buf;
  buf.fill(kCanary);
  auto task = recv_into(*ring_, fds_[0], buf.data(), buf.size(), {});
  loop_.schedule(task.handle());
  loop_.run_for(2ms);  // started, submitted, suspended
  ASSERT_TRUE(ring_->has_work());
  ASSERT_FALSE(task.done());
  task = {};  // the frame goes: ~UringOp cancels and reaps synchronously
  EXPECT_FALSE(ring_->has_work());
  expect_bytes_left_in_socket();
  EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](std::byte b) { return b == kCanary; }));
}

// The backend cannot be asked for a ring the kernel refuses without one clear line.
TEST(UringReason, NamesTheKernelsAnswer) {
  std::string why = tcp::uring_unavailable_reason(EPERM);
  EXPECT_EQ(why.rfind("tcp:uring unavailable: io_uring_queue_init: ", 0), 0u) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_NE(tcp::uring_unavailable_reason(ENOSYS).find("no io_uring"), std::string::npos);
}

class UringComm : public LoopFixture {
 protected:
  void SetUp() override { use_backend("tcp", "uring"); }
  // Socket buffers of 64 KiB on `c`, so that a large message takes many partial sends.
  static void shrink_buffers(Comm& c) {
    int fd = dynamic_cast<tcp::TcpComm&>(c).native_handle();
    int bytes = 64 * 1024;
    ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes), 0);
    ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes), 0);
  }
};

// 8 MiB (128 times the socket buffers) between small frames, both ways at once: every
// byte arrives in place and in order.
TEST_F(UringComm, LargeMessagesGoThroughWhole) {
  const Shape shape = {{3}, {8u << 20}, {1}, {(1u << 20) + 7}};
  run([&](CancelToken) -> Task<void> {
    std::unique_ptr<Comm> client, server;
    co_await connect_pair(client, server);
    shrink_buffers(*client);
    shrink_buffers(*server);
    PatternMessage a(1, shape), b(2, shape);
    Message at_server, at_client;
    co_await when_all(client->write(a.msg), server->write(b.msg), server->read(at_server),
                      client->read(at_client));
    EXPECT_EQ(wrong_bytes(at_server, 1, shape), 0u);
    EXPECT_EQ(wrong_bytes(at_client, 2, shape), 0u);
    co_await client->close();
    co_await server->close();
  });
}

// A read pending when its own comm is aborted ends with CommClosedError on the next
// turns (its SQE is cancelled before the socket closes; close alone would not end it).
TEST_F(UringComm, AbortEndsAPendingRead) {
  run([&](CancelToken) -> Task<void> {
    std::unique_ptr<Comm> client, server;
    co_await connect_pair(client, server);
    bool closed = false;
    auto reader = [&]() -> Task<void> { closed = co_await read_fails_closed(*client); };
    auto aborter = [&]() -> Task<void> {
      co_await loop_.sleep_for(10ms);
      client->abort();
    };
    co_await when_all(reader(), aborter());
    EXPECT_TRUE(closed);
    EXPECT_TRUE(co_await read_fails_closed(*server));  // and the peer learns of it
  });
}

}  // namespace

#endif  // COMMBENCH_HAVE_URING
