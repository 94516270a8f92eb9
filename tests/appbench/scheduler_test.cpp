// The appbench scheduler's bookkeeping (appbench/distributed/scheduler.hpp), in process
// without MPI: the test plays the client and two workers over TCP connections to one
// Scheduler and checks what it sends each of them -- which worker gets a task and when,
// where it is told the dependencies live, what the client hears when a graph finishes
// or fails, and how releases, stats and shutdown are routed.
#include "distributed/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "comm/errors.hpp"
#include "distributed/channel.hpp"
#include "loop_fixture.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace commbench::app;
using namespace commbench::testing;
using namespace std::chrono_literals;

namespace {

constexpr int kWorkers = 2;

class SchedulerTest : public LoopFixture {
 protected:
  void SetUp() override {
    use_backend("tcp");
    topo_.layout = Layout::compact;  // rank 0 scheduler and client, ranks 1, 2 workers
    topo_.ranks = 1 + kWorkers;
    topo_.addresses = {"tcp://sched", "tcp://w0", "tcp://w1"};
    scheduler_ = std::make_unique<Scheduler>(loop_, topo_, goodbye_timeout_);
  }
  void TearDown() override {
    // Every read in flight ends (CommClosedError) and its coroutine unwinds before the
    // channels and the scheduler are destroyed.
    channels_.abort_all();
    LoopFixture::TearDown();
    client_.reset();
    workers_.clear();
    scheduler_.reset();
  }

  // A connection to the scheduler that has said Hello{role, index}. (GCC 12 destroys some
  // aggregate temporaries of a co_await expression twice -- appbench/distributed/
  // channel.hpp -- so no test builds a message or task list inside one.)
  Task<std::unique_ptr<Channel>> join(Role role, int32_t index) {
    Hello hello{role, index};
    if (address_.empty())
      address_ = co_await listen([this](std::unique_ptr<Comm> comm) -> Task<void> {
        auto ch = std::make_unique<Channel>(channels_, std::move(comm));
        Message in;
        Hello h = expect<Hello>(co_await ch->recv(in), "first message");
        co_await scheduler_->serve(std::move(ch), h);
      });
    auto ch = std::make_unique<Channel>(channels_, co_await connect(address_));
    co_await ch->send(hello);
    co_return ch;
  }
  // Both workers, then the client, which reads the scheduler's "ready" Hello.
  Task<void> join_all() {
    for (int w = 0; w < kWorkers; ++w) workers_.push_back(co_await join(Role::worker, w));
    client_ = co_await join(Role::client, -1);
    Hello ready = co_await next<Hello>(*client_);
    EXPECT_EQ(ready.index, kWorkers);
  }

  // The next message on `ch`, which must be a T.
  template <typename T>
  Task<T> next(Channel& ch) {
    Message in;
    co_return expect<T>(co_await ch.recv(in), "test");
  }
  Task<void> submit(uint64_t graph, const std::vector<TaskSpec>& tasks) {
    Submit s{graph, tasks};
    co_await client_->send(s);
  }
  // Worker `w`'s next message: the Compute of `key`.
  Task<void> expect_computed(int w, std::string key) {
    Compute c = co_await next<Compute>(worker(w));
    EXPECT_EQ(c.key, key) << "on worker " << w;
  }
  // Submits graph `graph` of task "a" on worker 0 and "b" on worker 1; each gets its own.
  Task<void> one_on_each(uint64_t graph) {
    std::vector<TaskSpec> tasks = {task("a", {}, 0), task("b", {}, 1)};
    co_await submit(graph, tasks);
    co_await expect_computed(0, "a");
    co_await expect_computed(1, "b");
  }
  // The client's next message: graph `graph` failed with `error`.
  Task<void> expect_failed(uint64_t graph, std::string error) {
    GraphFailed f = co_await next<GraphFailed>(*client_);
    EXPECT_EQ(f.graph, graph);
    EXPECT_EQ(f.error, error);
  }
  Task<void> done(int worker, std::string key, uint64_t nbytes) {
    TaskDone d{std::move(key), nbytes};
    co_await workers_[static_cast<size_t>(worker)]->send(d);
  }
  Channel& worker(int w) { return *workers_[static_cast<size_t>(w)]; }

  static TaskSpec task(std::string key, std::vector<std::string> deps = {}, int32_t on = -1) {
    return TaskSpec{std::move(key), "f", std::move(deps), {}, on};
  }

  std::chrono::nanoseconds goodbye_timeout_ = 5s;  // a test may shorten it before SetUp
  Topology topo_;
  ChannelSet channels_{loop_};
  std::unique_ptr<Scheduler> scheduler_;
  std::string address_;
  std::vector<std::unique_ptr<Channel>> workers_;
  std::unique_ptr<Channel> client_;
};

// Both workers and the client connected, the client told "ready".
class SchedulerJoined : public SchedulerTest {
 protected:
  void SetUp() override {
    SchedulerTest::SetUp();
    run([&](CancelToken) -> Task<void> { co_await join_all(); });
  }
  // The client says Shutdown; every worker must be told.
  Task<void> shut_down_and_tell_every_worker() {
    Shutdown bye;
    co_await client_->send(bye);
    for (int w = 0; w < kWorkers; ++w) {
      Shutdown told = co_await next<Shutdown>(worker(w));
      (void)told;
    }
  }
};

TEST_F(SchedulerTest, ClientIsReadyOnlyOnceEveryWorkerRegistered) {
  run([&](CancelToken) -> Task<void> {
    workers_.push_back(co_await join(Role::worker, 0));
    client_ = co_await join(Role::client, -1);
    bool ready = false;
    auto client = [&]() -> Task<void> {
      co_await next<Hello>(*client_);
      ready = true;
    };
    auto last_worker = [&]() -> Task<void> {
      co_await loop_.sleep_for(50ms);
      EXPECT_FALSE(ready) << "ready with worker 1 missing";
      workers_.push_back(co_await join(Role::worker, 1));
    };
    co_await when_all(client(), last_worker());
    EXPECT_TRUE(ready);
  });
}

// A task runs once its dependencies are in memory, on the worker that holds most of
// their bytes, and learns where each lives; the client gets every key's place and size.
TEST_F(SchedulerJoined, GraphRunsInDependencyOrderWhereMostInputBytesAre) {
  run([&](CancelToken) -> Task<void> {
    std::vector<TaskSpec> g1 = {task("a", {}, 0), task("b", {}, 1), task("c", {"a", "b"})};
    co_await submit(1, g1);
    Compute a = co_await next<Compute>(worker(0));
    Compute b = co_await next<Compute>(worker(1));
    EXPECT_EQ(a.key, "a");
    EXPECT_EQ(b.key, "b");
    EXPECT_EQ(a.func, "f");
    co_await done(0, "a", 100);
    co_await done(1, "b", 5000);
    Compute c = co_await next<Compute>(worker(1));  // holds 5000 of c's 5100 input bytes
    EXPECT_EQ(c.key, "c");
    EXPECT_EQ(c.deps.size(), 2u);
    EXPECT_EQ(c.deps.at(0).key, "a");
    EXPECT_EQ(c.deps.at(0).worker, 0);
    EXPECT_EQ(c.deps.at(1).key, "b");
    EXPECT_EQ(c.deps.at(1).worker, 1);
    co_await done(1, "c", 8);
    GraphDone g = co_await next<GraphDone>(*client_);
    EXPECT_EQ(g.graph, 1u);
    EXPECT_EQ(g.results.size(), 3u);
    EXPECT_EQ(g.results.at(0).key, "a");
    EXPECT_EQ(g.results.at(0).worker, 0);
    EXPECT_EQ(g.results.at(0).nbytes, 100u);
    EXPECT_EQ(g.results.at(2).key, "c");
    EXPECT_EQ(g.results.at(2).worker, 1);
    EXPECT_EQ(g.results.at(2).nbytes, 8u);
    // A later graph may depend on keys already in memory: its tasks run at once, d where
    // its one input is, e where the larger of its two is.
    std::vector<TaskSpec> g2 = {task("d", {"a"}), task("e", {"b", "a"})};
    co_await submit(2, g2);
    co_await expect_computed(0, "d");
    co_await expect_computed(1, "e");
  });
}

TEST_F(SchedulerJoined, BadSubmissionsFailTheirGraphAndLeaveNothingBehind) {
  run([&](CancelToken) -> Task<void> {
    std::vector<TaskSpec> g3 = {task("a"), task("b", {"nope"})};
    co_await submit(1, g3);
    co_await expect_failed(1, "task 'b' depends on unknown key 'nope'");
    std::vector<TaskSpec> g4 = {task("x"), task("x")};
    co_await submit(2, g4);
    co_await expect_failed(2, "key 'x' submitted twice");
    std::vector<TaskSpec> g5 = {};
    co_await submit(3, g5);
    GraphDone empty = co_await next<GraphDone>(*client_);
    EXPECT_EQ(empty.graph, 3u);
    EXPECT_TRUE(empty.results.empty());
    // The refused graphs' keys were forgotten: the same keys are accepted again.
    std::vector<TaskSpec> g6 = {task("a", {}, 0), task("x", {}, 0)};
    co_await submit(4, g6);
    co_await expect_computed(0, "a");
    co_await expect_computed(0, "x");
  });
}

TEST_F(SchedulerJoined, FailedTaskFailsItsGraphNamingTheWorker) {
  run([&](CancelToken) -> Task<void> {
    co_await one_on_each(5);
    TaskFailed boom{"a", "boom", -1};
    co_await worker(0).send(boom);
    co_await expect_failed(5, "task 'a' failed on worker 0 (rank 1, tcp://w0): boom");
    // A fetch that broke on a peer is that peer's loss.
    std::vector<TaskSpec> g6 = {task("c", {}, 1)};
    co_await submit(6, g6);
    co_await expect_computed(1, "c");
    TaskFailed lost{"c", "connection reset", 0};
    co_await worker(1).send(lost);
    co_await expect_failed(
        6,
        "lost worker 0 (rank 1, tcp://w0), seen by task 'c' on worker 1 (rank 2, tcp://w1): "
        "connection reset");
  });
}

TEST_F(SchedulerJoined, LostWorkerFailsThePendingGraph) {
  run([&](CancelToken) -> Task<void> {
    std::vector<TaskSpec> g9 = {task("a", {}, 1)};
    co_await submit(9, g9);
    co_await expect_computed(1, "a");
    worker(1).abort();
    GraphFailed f = co_await next<GraphFailed>(*client_);
    EXPECT_EQ(f.graph, 9u);
    EXPECT_EQ(f.error.rfind("lost worker 1 (rank 2, tcp://w1): connection closed", 0), 0u)
        << f.error;
    // With no live worker left for it, a new task fails its graph instead of waiting.
    std::vector<TaskSpec> g10 = {task("b", {}, 1)};
    co_await submit(10, g10);
    co_await expect_failed(10, "no live worker for task 'b'");
  });
}

TEST_F(SchedulerJoined, ReleaseGoesToEachKeysHolder) {
  run([&](CancelToken) -> Task<void> {
    co_await one_on_each(1);
    co_await done(0, "a", 1);
    co_await done(1, "b", 1);
    GraphDone g = co_await next<GraphDone>(*client_);
    EXPECT_EQ(g.results.size(), 2u);
    Release r{{"a", "unknown", "b"}};
    co_await client_->send(r);
    Release r0 = co_await next<Release>(worker(0)), r1 = co_await next<Release>(worker(1));
    EXPECT_EQ(r0.keys, std::vector<std::string>{"a"});
    EXPECT_EQ(r1.keys, std::vector<std::string>{"b"});
  });
}

// The client's stats request reaches every worker; their replies come back as one, after
// the scheduler's own entry (worker -1); a reply to an older request is ignored.
TEST_F(SchedulerJoined, StatsRepliesAreMergedForTheClient) {
  run([&](CancelToken) -> Task<void> {
    StatsRequest q{7};
    co_await client_->send(q);
    for (int w = 0; w < kWorkers; ++w) {
      StatsRequest forwarded = co_await next<StatsRequest>(worker(w));
      EXPECT_EQ(forwarded.id, 7u);
    }
    StatsReply stale{6, {WorkerStats{0, 99, 0, 0, 0, {}}}};
    co_await worker(0).send(stale);
    for (int w = 0; w < kWorkers; ++w) {
      StatsReply r{7, {WorkerStats{w, static_cast<uint64_t>(10 + w), 0, 0, 0, {}}}};
      co_await worker(w).send(r);
    }
    StatsReply all = co_await next<StatsReply>(*client_);
    EXPECT_EQ(all.id, 7u);
    EXPECT_EQ(all.workers.size(), 3u);
    EXPECT_EQ(all.workers.at(0).worker, -1);
    EXPECT_EQ(all.workers.at(1).tasks + all.workers.at(2).tasks, 21u);
  });
}

TEST_F(SchedulerJoined, ShutdownReachesEveryWorker) {
  run([&](CancelToken) -> Task<void> {
    co_await shut_down_and_tell_every_worker();
    for (int w = 0; w < kWorkers; ++w)
      co_await worker(w).comm().close();  // as Worker::message_loop does
    co_await scheduler_->wait_shutdown();
  });
}

// The scheduler's rank stays in its loop until every worker has hung up: a worker's close
// may need the scheduler's end to progress (ucx: the shared-memory FIFO fills at ~40
// ranks), and a scheduler that left for the end-of-run MPI collectives at once hung the
// 40-rank ucx merge (scheduler.hpp). Before the fix wait_shutdown() returned as soon as
// Shutdown was sent. ~60 ms.
TEST_F(SchedulerJoined, ShutdownWaitsUntilEveryWorkerHungUp) {
  run([&](CancelToken) -> Task<void> {
    co_await shut_down_and_tell_every_worker();
    bool finished = false;
    auto waiter = [&]() -> Task<void> {
      co_await scheduler_->wait_shutdown();
      finished = true;
    };
    auto workers = [&]() -> Task<void> {
      co_await worker(0).comm().close();
      co_await loop_.sleep_for(50ms);
      EXPECT_FALSE(finished) << "shutdown done while worker 1 was still connected";
      co_await worker(1).comm().close();
    };
    co_await when_all(waiter(), workers());
    EXPECT_TRUE(finished);
  });
}

// ...but a worker that never hangs up holds it only for the goodbye timeout. ~0.2 s.
class SchedulerShortGoodbye : public SchedulerJoined {
 protected:
  void SetUp() override {
    goodbye_timeout_ = 200ms;
    SchedulerJoined::SetUp();
  }
};

TEST_F(SchedulerShortGoodbye, ShutdownGivesUpOnAWorkerThatStays) {
  run([&](CancelToken) -> Task<void> {
    co_await shut_down_and_tell_every_worker();
    co_await worker(0).comm().close();  // worker 1 stays connected
    uint64_t start = EventLoop::now_ns();
    co_await scheduler_->wait_shutdown();
    double waited = static_cast<double>(EventLoop::now_ns() - start) * 1e-9;
    EXPECT_GE(waited, 0.15);
    EXPECT_LT(waited, 3.0);
  });
}

// A worker index outside the topology, or one already taken, is refused.
TEST_F(SchedulerTest, BadWorkerRegistrationIsRefused) {
  run([&](CancelToken) -> Task<void> {
    workers_.push_back(co_await join(Role::worker, 0));
    workers_.push_back(co_await join(Role::worker, 0));
    workers_.push_back(co_await join(Role::worker, kWorkers));
    while (handler_errors_.size() < 2) co_await loop_.sleep_for(1ms);
  });
  std::sort(handler_errors_.begin(), handler_errors_.end());  // connections race
  EXPECT_EQ(handler_errors_, (std::vector<std::string>{"bad worker registration (index 0)",
                                                       "bad worker registration (index 2)"}));
}

}  // namespace
