// connect_with_retry: retries transient failures with a growing, capped pause, gives up at
// the deadline naming the last failure, and lets permanent errors through at once.
#include "comm/connect_retry.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "comm/errors.hpp"

using namespace commbench;
using namespace std::chrono_literals;

namespace {

// What a successful attempt hands back; never used as a connection.
class StubComm final : public Comm {
 public:
  Task<void> write(const Message&, CancelToken) override { co_return; }
  Task<void> read(Message&, CancelToken) override { co_return; }
  Task<void> close() override { co_return; }
  void abort() noexcept override {}
  bool closed() const noexcept override { return false; }
  std::string local_address() const override { return "stub://local"; }
  std::string peer_address() const override { return "stub://peer"; }
};

using Clock = std::chrono::steady_clock;

TEST(ConnectBackoff, DoublesFromOneMillisecondUpToTheCap) {
  ConnectBackoff b;
  std::vector<long> got;
  for (int i = 0; i < 10; ++i) got.push_back(static_cast<long>(b.next().count()));
  EXPECT_EQ(got, (std::vector<long>{1, 2, 4, 8, 16, 32, 64, 100, 100, 100}));
}

TEST(ConnectRetry, SucceedsAfterFailuresPausingLongerEachTime) {
  EventLoop loop;
  std::vector<Clock::time_point> starts;
  auto attempt = [&](CancelToken, std::string& why) -> Task<std::unique_ptr<Comm>> {
    starts.push_back(Clock::now());
    if (starts.size() <= 3) {
      why = "refused";
      co_return nullptr;
    }
    co_return std::make_unique<StubComm>();
  };
  auto comm = loop.run(connect_with_retry(loop, "stub://peer", 5s, attempt));
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(comm->peer_address(), "stub://peer");
  ASSERT_EQ(starts.size(), 4u);
  // The pauses are 1, 2 and 4 ms: each gap is at least its pause (a loaded machine may
  // make it longer, never shorter).
  for (size_t i = 1; i < starts.size(); ++i)
    EXPECT_GE(starts[i] - starts[i - 1], std::chrono::milliseconds(1 << (i - 1))) << "gap " << i;
}

TEST(ConnectRetry, GivesUpAtTheDeadlineNamingTheLastFailure) {
  EventLoop loop;
  int attempts = 0;
  auto attempt = [&](CancelToken, std::string& why) -> Task<std::unique_ptr<Comm>> {
    why = "refused #" + std::to_string(++attempts);
    co_return nullptr;
  };
  auto t0 = Clock::now();
  std::string what;
  try {
    (void)loop.run(connect_with_retry(loop, "tcp://10.0.0.1:7", 60ms, attempt));
  } catch (const ConnectError& e) {
    what = e.what();
  }
  EXPECT_GE(Clock::now() - t0, 60ms);
  EXPECT_GE(attempts, 2);  // retried (how often depends on how late the pauses end)
  EXPECT_EQ(what, "could not connect to tcp://10.0.0.1:7 within 60 ms: refused #" +
                      std::to_string(attempts));
}

TEST(ConnectRetry, AnAttemptCutByTheDeadlineReportsThatNoneFinished) {
  EventLoop loop;
  auto attempt = [&](CancelToken token, std::string&) -> Task<std::unique_ptr<Comm>> {
    co_await loop.sleep_for(10s, token);  // a peer that never answers
    co_return nullptr;
  };
  std::string what;
  try {
    (void)loop.run(connect_with_retry(loop, "mpi://3:1", 20ms, attempt, "no answer from rank 3"));
  } catch (const ConnectError& e) {
    what = e.what();
  }
  EXPECT_EQ(what, "could not connect to mpi://3:1 within 20 ms: no answer from rank 3");
}

TEST(ConnectRetry, APermanentErrorIsNotRetried) {
  EventLoop loop;
  int attempts = 0;
  auto attempt = [&](CancelToken, std::string&) -> Task<std::unique_ptr<Comm>> {
    ++attempts;
    throw ProtocolError("not a commbench peer");
    co_return nullptr;
  };
  EXPECT_THROW((void)loop.run(connect_with_retry(loop, "tcp://h:1", 5s, attempt)), ProtocolError);
  EXPECT_EQ(attempts, 1);
}

}  // namespace
