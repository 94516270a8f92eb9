// Faults injected by the wrapper backend (tests/support/fault) into every registered backend
// and progress policy: delays, a connection dropped mid-message, closes during the
// handshake, corrupted headers. Each case asserts the exact error it must yield and
// runs under a deadline (and CTest's TIMEOUT), so a hang fails instead of waiting.
#include <gtest/gtest.h>

#include <cstdio>

#include "comm/errors.hpp"
#include "fault/fault_backend.hpp"
#include "loop_fixture.hpp"
#include "pattern_message.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace commbench::testing;
using namespace std::chrono_literals;
using fault::FaultPlan;
using fault::Side;

namespace {

using Clock = std::chrono::steady_clock;

class FaultSuite : public BackendSuite {
 protected:
  FaultSuite() { run_limit_ = std::chrono::seconds(60); }
  void SetUp() override {
    BackendSuite::SetUp();
    if (IsSkipped()) return;
    plan_ = std::make_shared<FaultPlan>();
    fault_ = fault::make_fault_backend(loop_, std::move(backend_), plan_);
    under_test_ = fault_.get();
  }
  void TearDown() override {
    BackendSuite::TearDown();
    fault_.reset();
  }

  Task<void> wait_for(const bool& flag, CancelToken t) {
    while (!flag) co_await loop_.sleep_for(1ms, t);
  }
  // Until a server handler has ended (echo_.last_end says how).
  Task<void> wait_for_end(CancelToken t) {
    while (echo_.last_end.empty()) co_await loop_.sleep_for(1ms, t);
  }

  std::shared_ptr<FaultPlan> plan_;
  std::unique_ptr<Backend> fault_;
};

TEST_P(FaultSuite, WrapperIsTransparentWithoutFaults) {
  std::vector<Shape> shapes = {{1}, {}, {0}, {7, 0, 4096}, {(1u << 20) + 17, 5}};
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(*fault_, echo()));
    EXPECT_EQ(comm->peer_address().rfind("fault+" + GetParam().scheme + "://", 0), 0u);
    co_await expect_echoes(*comm, shapes);
    co_await comm->close();
  });
  EXPECT_EQ(plan_->injected, 0u);
}

// A read slower than its deadline ends in TimeoutError, promptly, on every backend.
TEST_P(FaultSuite, DelayedReadTimesOut) {
  plan_->comm_side = Side::connector;
  plan_->read_delay = 2s;
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(*fault_, echo()));
    auto t0 = Clock::now();
    bool timed_out = co_await read_times_out(*comm, 100ms);
    EXPECT_TRUE(timed_out);
    EXPECT_LT(Clock::now() - t0, 1s);
  });
}

// Delays on both reads and writes slow a round trip down but lose and reorder nothing.
TEST_P(FaultSuite, DelayedReadsAndWritesStillDeliverInOrder) {
  plan_->comm_side = Side::connector;
  plan_->read_delay = 3ms;
  plan_->write_delay = 5ms;
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(*fault_, echo()));
    auto t0 = Clock::now();
    constexpr size_t kMessages = 8;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < kMessages; ++i) shapes.push_back({i * 1000 + 1, 3});
    co_await expect_pipelined_echoes(*comm, shapes);
    EXPECT_GE(Clock::now() - t0, 5ms);  // the delays really happened (they overlap)
    co_await comm->close();
  });
}

// The connection dies with part of a 32 MiB message sent: the writer gets
// CommClosedError, the reader's read ends in CommClosedError, and no truncated or
// corrupt message is ever delivered (TCP and UCX deliver nothing; an MPI send that was
// already posted may still arrive whole).
TEST_P(FaultSuite, DropMidMessage) {
  plan_->comm_side = Side::connector;
  plan_->drop_on_write = 0;
  plan_->drop_after = 20ms;
  size_t delivered = 0, wrong = 0;
  run([&](CancelToken t) -> Task<void> {
    std::string addr = co_await listen(*fault_, [&](std::unique_ptr<Comm> comm) -> Task<void> {
      co_await loop_.sleep_for(60ms);  // the message cannot complete before the cut
      Message m;
      try {
        for (;;) {
          co_await comm->read(m);
          ++delivered;
          wrong += wrong_bytes(m, 1, {32u << 20});
        }
      } catch (const CommClosedError& e) {
        echo_.last_end = "CommClosedError";
        echo_.last_why = e.what();
      } catch (const std::exception& e) {
        echo_.last_end = "other";
        echo_.last_why = e.what();
      }
    });
    auto comm = co_await connect(addr);
    PatternMessage big(1, {32u << 20});
    bool writer_closed = false;
    try {
      co_await comm->write(big.msg);
    } catch (const CommClosedError&) {
      writer_closed = true;
    }
    EXPECT_TRUE(writer_closed);
    EXPECT_TRUE(comm->closed());
    co_await wait_for_end(t);
  });
  EXPECT_EQ(echo_.last_end, "CommClosedError") << echo_.last_why;
  // Whole or nothing: a transport may still deliver a write that was cancelled after it
  // was handed over (an MPI send cannot be taken back), but never a cut or corrupt one.
  EXPECT_LE(delivered, 1u);
  EXPECT_EQ(wrong, 0u) << "a message cut mid-way was delivered truncated or corrupt";
  if (delivered)
    std::printf("[fault] %s: the cancelled 32 MiB write was still delivered whole\n",
                GetParam().scheme.c_str());
  EXPECT_EQ(plan_->injected, 1u);
}

// Every header byte that matters, inverted: the reader refuses with ProtocolError and
// drops the connection, so the writer's next read fails with CommClosedError.
TEST_P(FaultSuite, CorruptHeaderIsRefused) {
  // magic, version, reserved, frame count (low and high byte), frame size, memory kind
  for (size_t byte : {0u, 4u, 5u, 8u, 11u, 12u, 19u}) {
    SCOPED_TRACE("corrupt header byte " + std::to_string(byte));
    echo_.last_end.clear();
    plan_->comm_side = Side::connector;
    plan_->corrupt_on_write = 1;  // the first message goes through intact
    plan_->corrupt_byte = byte;
    run(
        [&](CancelToken t) -> Task<void> {
          auto comm = co_await connect(co_await listen(*fault_, echo()));
          PatternMessage good(1, {100}), bad(2, {100});
          Message in;
          co_await comm->write(good.msg);
          co_await comm->read(in);
          EXPECT_EQ(wrong_bytes(in, 1, {100}), 0u);
          co_await comm->write(bad.msg);
          bool closed = false;
          try {
            co_await comm->read(in);
          } catch (const CommClosedError&) {
            closed = true;
          }
          EXPECT_TRUE(closed) << "the reader kept a connection whose header was corrupt";
          co_await wait_for_end(t);
        },
        20s);
    EXPECT_EQ(echo_.last_end, "ProtocolError") << echo_.last_why;
  }
  EXPECT_EQ(plan_->injected, 7u);
}

// The connector closes after connecting, before its hello: the listener drops that peer
// (CommClosedError in its handshake) and keeps serving the next one.
TEST_P(FaultSuite, CloseDuringConnect) {
  run([&](CancelToken t) -> Task<void> {
    std::string addr = co_await listen(*fault_, echo());
    plan_->close_in_connect = true;
    bool refused = false;
    try {
      co_await connect(addr, 5s);
    } catch (const ConnectError& e) {
      refused = std::string(e.what()).find("handshake") != std::string::npos;
    }
    EXPECT_TRUE(refused);
    while (plan_->handshakes_refused == 0) co_await loop_.sleep_for(1ms, t);
    plan_->close_in_connect = false;
    auto comm = co_await connect(addr, 5s);
    PatternMessage out(3, {64});
    Message in;
    co_await comm->write(out.msg);
    co_await comm->read(in);
    EXPECT_EQ(wrong_bytes(in, 3, {64}), 0u);
  });
  EXPECT_EQ(plan_->handshakes_refused, 1u);
  EXPECT_EQ(plan_->last_handshake_error_type, "CommClosedError") << plan_->last_handshake_error;
}

// The listener closes instead of answering the hello: connect() fails with ConnectError
// naming the address, within its timeout.
TEST_P(FaultSuite, CloseDuringAccept) {
  plan_->close_in_accept = true;
  run([&](CancelToken) -> Task<void> {
    std::string addr = co_await listen(*fault_, echo());
    auto t0 = Clock::now();
    std::string why;
    try {
      co_await connect(addr, 3s);
    } catch (const ConnectError& e) {
      why = e.what();
    }
    EXPECT_NE(why.find(addr), std::string::npos) << why;
    EXPECT_NE(why.find("handshake"), std::string::npos) << why;
    EXPECT_LT(Clock::now() - t0, 4s);
  });
  EXPECT_EQ(plan_->injected, 1u);
}

// A hello with a bad magic: the listener refuses it with ProtocolError and serves on;
// the connector sees the connection refused (ConnectError).
TEST_P(FaultSuite, CorruptHelloIsRefused) {
  run([&](CancelToken) -> Task<void> {
    std::string addr = co_await listen(*fault_, echo());
    plan_->corrupt_hello = true;
    bool refused = false;
    try {
      co_await connect(addr, 3s);
    } catch (const ConnectError&) {
      refused = true;
    }
    EXPECT_TRUE(refused);
    plan_->corrupt_hello = false;
    auto comm = co_await connect(addr, 5s);
    EXPECT_FALSE(comm->closed());
  });
  EXPECT_EQ(plan_->handshakes_refused, 1u);
  EXPECT_EQ(plan_->last_handshake_error_type, "ProtocolError") << plan_->last_handshake_error;
  EXPECT_NE(plan_->last_handshake_error.find("magic"), std::string::npos)
      << plan_->last_handshake_error;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, FaultSuite, ::testing::ValuesIn(all_backend_params()),
                         param_name);

}  // namespace
