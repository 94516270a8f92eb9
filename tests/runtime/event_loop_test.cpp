// The event loop: ordering, timers, cancellation, descriptors, pollers, idle blocking.
#include "runtime/event_loop.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "runtime/async_mutex.hpp"
#include "runtime/spawn.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace std::chrono_literals;

namespace {

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// A non-blocking socket pair whose end fd[0] the loop watches until unwatch() or the end
// of the test.
struct WatchedPair {
  explicit WatchedPair(EventLoop& l) : loop(l) {
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd), 0);
    loop.watch_fd(fd[0]);
  }
  ~WatchedPair() {
    unwatch();
    close(fd[0]);
    close(fd[1]);
  }
  void unwatch() {
    if (watched) loop.unwatch_fd(fd[0]);
    watched = false;
  }
  EventLoop& loop;
  int fd[2] = {-1, -1};
  bool watched = true;
};

TEST(EventLoop, YieldRunsReadyTasksInFifoOrder) {
  EventLoop loop;
  std::vector<int> order;
  auto worker = [&](int id) -> Task<void> {
    for (int round = 0; round < 3; ++round) {
      order.push_back(id * 10 + round);
      co_await loop.yield();
    }
  };
  std::vector<Task<void>> ts;
  for (int i = 1; i <= 3; ++i) ts.push_back(worker(i));
  loop.run(when_all(std::move(ts)));
  EXPECT_EQ(order, (std::vector<int>{10, 20, 30, 11, 21, 31, 12, 22, 32}));
}

TEST(EventLoop, TimersFireInDeadlineOrder) {
  EventLoop loop;
  std::vector<int> order;
  auto sleeper = [&](int ms) -> Task<void> {
    co_await loop.sleep_for(std::chrono::milliseconds(ms));
    order.push_back(ms);
  };
  auto start = std::chrono::steady_clock::now();
  loop.run(when_all(sleeper(30), sleeper(10), sleeper(20)));
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(order, (std::vector<int>{10, 20, 30}));
  EXPECT_GE(elapsed, 30ms);
  EXPECT_LT(elapsed, 2s);
}

TEST(EventLoop, WithTimeoutCancelsASleepingTask) {
  EventLoop loop;
  auto start = std::chrono::steady_clock::now();
  auto body = [&](CancelToken t) -> Task<void> { co_await loop.sleep_for(10s, t); };
  EXPECT_THROW(loop.run(with_timeout(loop, 20ms, body)), TimeoutError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(EventLoop, WithTimeoutReturnsValueWhenInTime) {
  EventLoop loop;
  auto body = [&](CancelToken t) -> Task<int> {
    co_await loop.sleep_for(1ms, t);
    co_return 5;
  };
  EXPECT_EQ(loop.run(with_timeout(loop, 5s, body)), 5);
}

TEST(EventLoop, TimeoutCancelsDescriptorWait) {
  EventLoop loop;
  WatchedPair p(loop);
  auto body = [&](CancelToken t) -> Task<void> { co_await loop.readable(p.fd[0], t); };
  EXPECT_THROW(loop.run(with_timeout(loop, 20ms, body)), TimeoutError);
}

TEST(EventLoop, DescriptorWaitWakesOnData) {
  EventLoop loop;
  WatchedPair p(loop);
  char got = 0;
  auto reader = [&]() -> Task<void> {
    while (recv(p.fd[0], &got, 1, 0) != 1) co_await loop.readable(p.fd[0]);
  };
  auto writer = [&]() -> Task<void> {
    co_await loop.sleep_for(5ms);
    char c = 'x';
    EXPECT_EQ(send(p.fd[1], &c, 1, 0), 1);
  };
  loop.run(when_all(reader(), writer()));
  EXPECT_EQ(got, 'x');
}

TEST(EventLoop, UnwatchWakesWaiter) {
  EventLoop loop;
  WatchedPair p(loop);
  uint32_t events = 0;
  auto waiter = [&]() -> Task<void> { events = co_await loop.readable(p.fd[0]); };
  auto closer = [&]() -> Task<void> {
    co_await loop.yield();
    p.unwatch();
  };
  loop.run(when_all(waiter(), closer()));
  EXPECT_NE(events, 0u);
}

TEST(EventLoop, SpawnReportsEscapedErrors) {
  EventLoop loop;
  std::string seen;
  loop.set_error_handler([&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      seen = ex.what();
    }
  });
  spawn(loop, []() -> Task<void> {
    throw std::runtime_error("detached failure");
    co_return;
  }());
  loop.run_for(1ms);
  EXPECT_EQ(seen, "detached failure");
  EXPECT_EQ(loop.detached_errors(), 1u);
  EXPECT_EQ(loop.live_detached(), 0u);
}

// others_ready() is what lets a polling coroutine keep polling without delaying anyone.
TEST(EventLoop, OthersReadyWhileACoroutineIsQueued) {
  EventLoop loop;
  bool alone = true, with_other = false;
  auto body = [&]() -> Task<void> {
    alone = loop.others_ready();
    spawn(loop, []() -> Task<void> { co_return; }());  // queued for the next turn
    with_other = loop.others_ready();
    co_await loop.yield();
  };
  loop.run(body());
  EXPECT_FALSE(alone);
  EXPECT_TRUE(with_other);
  EXPECT_FALSE(loop.others_ready());
}

TEST(EventLoop, SettleDetachedWaitsForSpawnedTasksThenGivesUp) {
  EventLoop loop;
  bool finished = false;
  spawn(loop, [](EventLoop& l, bool& done) -> Task<void> {
    co_await l.sleep_for(30ms);
    done = true;
  }(loop, finished));
  EXPECT_TRUE(loop.settle_detached(5s));
  EXPECT_TRUE(finished);
  // One that outlives the limit: settle returns false after about the limit.
  CancelSource stop;
  spawn(loop, [](EventLoop& l, CancelToken t) -> Task<void> {
    try {
      co_await l.sleep_for(60s, t);
    } catch (const std::exception&) {
    }
  }(loop, stop.token()));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(loop.settle_detached(50ms));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 50ms);
  EXPECT_EQ(loop.live_detached(), 1u);
  stop.cancel();
  EXPECT_TRUE(loop.settle_detached(5s));
}

TEST(EventLoop, WhenAllRethrowsAfterAllFinish) {
  EventLoop loop;
  bool slow_finished = false;
  auto fail = []() -> Task<void> {
    throw std::runtime_error("first");
    co_return;
  };
  auto slow = [&]() -> Task<void> {
    co_await loop.sleep_for(5ms);
    slow_finished = true;
  };
  EXPECT_THROW(loop.run(when_all(fail(), slow())), std::runtime_error);
  EXPECT_TRUE(slow_finished);
}

TEST(EventLoop, AsyncMutexIsFifo) {
  EventLoop loop;
  AsyncMutex m(loop);
  std::vector<int> order;
  auto user = [&](int id) -> Task<void> {
    auto g = co_await m.lock();
    order.push_back(id);
    co_await loop.yield();
    order.push_back(id);
  };
  loop.run(when_all(user(1), user(2), user(3)));
  EXPECT_EQ(order, (std::vector<int>{1, 1, 2, 2, 3, 3}));
  EXPECT_FALSE(m.locked());
}

// An idle loop must block, not spin: on a 2-core machine a spinning idle rank would
// take a core from the ranks doing the work.
TEST(EventLoop, IdleLoopBlocksInsteadOfSpinning) {
  EventLoop loop;
  double cpu0 = cpu_seconds();
  loop.run_for(300ms);
  double cpu = cpu_seconds() - cpu0;
  EXPECT_LT(cpu, 0.05) << "an idle 300 ms sleep used " << cpu << " s of CPU";
  EXPECT_GE(loop.stats().blocks, 1u);
}

// A poller that cannot arm (MPI) keeps the loop from blocking forever but must not
// make it spin either: the loop naps with back-off.
class BusyPoller final : public Poller {
 public:
  const char* name() const noexcept override { return "never-done"; }
  bool has_work() const noexcept override { return true; }
  bool poll() override {
    ++polls;
    return false;
  }
  size_t polls = 0;
};

TEST(EventLoop, UnarmablePollerMakesLoopNapNotSpin) {
  EventLoop loop;
  BusyPoller p;
  loop.add_poller(&p);
  double cpu0 = cpu_seconds();
  loop.run_for(300ms);
  double cpu = cpu_seconds() - cpu0;
  loop.remove_poller(&p);
  EXPECT_LT(cpu, 0.1) << "napping loop used " << cpu << " s of CPU in 300 ms";
  EXPECT_GT(loop.stats().naps, 10u);
  EXPECT_GT(p.polls, 10u);  // it is still polled while the loop naps
}

// Pollers are polled every turn while they have work, and the loop resumes what they
// complete.
class CountdownPoller final : public Poller {
 public:
  explicit CountdownPoller(EventLoop& l) : loop(l) {}
  const char* name() const noexcept override { return "countdown"; }
  bool has_work() const noexcept override { return waiter != nullptr; }
  bool poll() override {
    if (--remaining > 0) return false;
    auto h = waiter;
    waiter = nullptr;
    loop.schedule(h);
    return true;
  }
  EventLoop& loop;
  int remaining = 100;
  std::coroutine_handle<> waiter;
};

TEST(EventLoop, PollerCompletesWaiter) {
  EventLoop loop;
  CountdownPoller p(loop);
  loop.add_poller(&p);
  struct Wait {
    CountdownPoller& p;
    bool await_ready() { return false; }
    void await_suspend(std::coroutine_handle<> h) { p.waiter = h; }
    void await_resume() {}
  };
  auto body = [&]() -> Task<void> { co_await Wait{p}; };
  loop.run(body());
  EXPECT_EQ(p.remaining, 0);
  loop.remove_poller(&p);
}

}  // namespace
