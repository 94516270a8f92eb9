// The event loop: ordering, timers, cancellation, descriptors, pollers, idle blocking.
#include "runtime/event_loop.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
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

namespace {

// --- probes (FdProbe): a waiting reader's own recv made by the loop -------------------

// One recv of up to 8 bytes from `fd`, as a reader's attempt and its probe; counts the
// attempts the loop made so a test can tell a probe from a readiness wake.
struct ProbedRecv {
  int fd;
  char buf[8] = {};
  ssize_t got = -1;
  int err = EAGAIN;
  int by_loop = 0;
  bool finished() const { return got >= 0 || (err != EAGAIN && err != EWOULDBLOCK); }
  bool attempt() {
    got = recv(fd, buf, sizeof buf, 0);
    err = got < 0 ? errno : 0;
    return finished();
  }
  FdProbe probe() {
    return {[](void* self) {
              auto* r = static_cast<ProbedRecv*>(self);
              ++r->by_loop;
              return r->attempt();
            },
            this};
  }
};

// A loop that never blocks while a test runs (its turns are what the test looks at).
LoopOptions spinning_loop() {
  LoopOptions o;
  o.spin_budget = std::chrono::hours(1);
  o.spin_yield_after = std::chrono::nanoseconds::max();
  return o;
}

Task<void> send_after_turns(EventLoop& loop, int fd, int turns, char c = 'x') {
  for (int i = 0; i < turns; ++i) co_await loop.yield();
  EXPECT_EQ(send(fd, &c, 1, 0), 1);
}

// A cooperative waiter: tests `ready` each time, retries through the loop until it holds.
struct RetryUntil {
  EventLoop& loop;
  const int& tests_left;
  bool await_ready() {
    if (tests_left > 0) return false;
    loop.retry_found_something();
    return true;
  }
  void await_suspend(std::coroutine_handle<> h) { loop.retry(h); }
  void await_resume() const noexcept {}
};

Task<void> wait_retrying(EventLoop& loop, int& tests_left) {
  for (;;) {
    --tests_left;
    if (tests_left <= 0) break;
    co_await RetryUntil{loop, tests_left};
  }
  co_await RetryUntil{loop, tests_left};
}

TEST(EventLoopRetry, AFruitlessRetryYieldsTheCoreWhereRanksOutnumberCpus) {
  LoopOptions o = spinning_loop();
  o.spin_yield_after = 0ns;  // what the automatic rule picks on an oversubscribed machine
  EventLoop loop(o);
  int tests_left = 200;
  loop.run(wait_retrying(loop, tests_left));
  // The first fruitless retry starts the stretch; every one after it yields.
  EXPECT_GE(loop.stats().retry_yields, 190u);
}

TEST(EventLoopRetry, NoYieldWhereTheCpusSuffice) {
  EventLoop loop(spinning_loop());  // spin_yield_after = max: the machine is not shared
  int tests_left = 200;
  loop.run(wait_retrying(loop, tests_left));
  EXPECT_EQ(loop.stats().retry_yields, 0u);
}

TEST(EventLoopRetry, ASuccessEndsTheFruitlessStretch) {
  LoopOptions o = spinning_loop();
  o.spin_yield_after = 5ms;
  EventLoop loop(o);
  // Twelve short waits 1 ms apart: 12 ms of waiting in all, but each stretch of fruitless
  // retries ends with its success, so none reaches 5 ms (without the reset, the retries
  // after the sixth wait would yield).
  for (int round = 0; round < 12; ++round) {
    int tests_left = 5;
    loop.run(wait_retrying(loop, tests_left));
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(loop.stats().retry_yields, 0u);
}

TEST(EventLoopProbe, TheOnlyWaitersProbeTakesTheDataWithoutAskingEpoll) {
  EventLoop loop(spinning_loop());
  WatchedPair p(loop);
  ProbedRecv r{p.fd[0]};
  auto reader = [&]() -> Task<void> {
    EXPECT_FALSE(r.attempt());
    co_await loop.readable(p.fd[0], {}, r.probe());
  };
  loop.run(when_all(reader(), send_after_turns(loop, p.fd[1], 20)));
  ASSERT_EQ(r.got, 1);
  EXPECT_EQ(r.buf[0], 'x');
  EXPECT_GE(r.by_loop, 20);  // one attempt per turn until the byte came
  EXPECT_GE(loop.stats().probes, 20u);
  EXPECT_EQ(loop.stats().peeks, 0u);  // the probe stood in for epoll on every turn
}

TEST(EventLoopProbe, ALazyWaitIsSeenWhileAReaderProbes) {
  EventLoop loop(spinning_loop());
  WatchedPair a(loop), b(loop);
  ProbedRecv r{a.fd[0]};
  bool incoming_woke = false;
  auto reader = [&]() -> Task<void> {
    EXPECT_FALSE(r.attempt());
    co_await loop.readable(a.fd[0], {}, r.probe());
  };
  auto listener = [&]() -> Task<void> {
    co_await loop.incoming(b.fd[0]);
    incoming_woke = true;
    // Only then the reader's byte: the lazy wait was seen while the reader kept probing.
    EXPECT_GT(loop.stats().probes, 0u);
    char c = 'y';
    EXPECT_EQ(send(a.fd[1], &c, 1, 0), 1);
  };
  loop.run(when_all(reader(), listener(), send_after_turns(loop, b.fd[1], 20)));
  EXPECT_TRUE(incoming_woke);
  EXPECT_EQ(r.got, 1);
  EXPECT_GT(loop.stats().peeks, 0u);
  EXPECT_LT(loop.stats().peeks, loop.stats().probes);  // every 8th turn only
}

TEST(EventLoopProbe, TwoPromptWaitersGoBackToEpoll) {
  EventLoop loop(spinning_loop());
  WatchedPair a(loop), b(loop);
  ProbedRecv ra{a.fd[0]}, rb{b.fd[0]};
  auto reader = [&](ProbedRecv& r) -> Task<void> {
    EXPECT_FALSE(r.attempt());
    co_await loop.readable(r.fd, {}, r.probe());
  };
  auto writers = [&]() -> Task<void> {
    co_await send_after_turns(loop, b.fd[1], 20);
    co_await send_after_turns(loop, a.fd[1], 20);
  };
  loop.run(when_all(reader(ra), reader(rb), writers()));
  EXPECT_EQ(ra.got, 1);
  EXPECT_EQ(rb.got, 1);
  EXPECT_GE(loop.stats().peeks, 20u);  // while both waited, epoll was asked every turn
  // rb's byte came by epoll, and the loop made rb's attempt on its word (one, which
  // finished: a probing reader wakes with its result); after that ra waited alone and
  // probed.
  EXPECT_EQ(rb.by_loop, 1);
  EXPECT_GE(loop.stats().probes, 10u);
}

TEST(EventLoopProbe, ACancelledProbingWaitLeavesTheNextOneProbing) {
  EventLoop loop(spinning_loop());
  WatchedPair p(loop);
  ProbedRecv first{p.fd[0]};
  auto body = [&](CancelToken t) -> Task<void> {
    co_await loop.readable(p.fd[0], t, first.probe());
  };
  EXPECT_THROW(loop.run(with_timeout(loop, 5ms, body)), TimeoutError);
  uint64_t probes_before = loop.stats().probes;
  ProbedRecv second{p.fd[0]};
  auto reader = [&]() -> Task<void> { co_await loop.readable(p.fd[0], {}, second.probe()); };
  loop.run(when_all(reader(), send_after_turns(loop, p.fd[1], 10)));
  EXPECT_EQ(second.got, 1);
  EXPECT_GE(loop.stats().probes - probes_before, 10u);
}

TEST(EventLoopProbe, AHangUpWakesAProbingReaderWhoseAttemptWouldBlock) {
  EventLoop loop(spinning_loop());
  WatchedPair p(loop);
  ProbedRecv r{p.fd[0]};
  bool woke = false;
  auto reader = [&]() -> Task<void> {
    co_await loop.readable(p.fd[0], {}, r.probe());
    woke = true;
  };
  auto closer = [&]() -> Task<void> {
    for (int i = 0; i < 5; ++i) co_await loop.yield();
    p.unwatch();
  };
  loop.run(when_all(reader(), closer()));
  EXPECT_TRUE(woke);
  EXPECT_FALSE(r.finished());
}

}  // namespace
