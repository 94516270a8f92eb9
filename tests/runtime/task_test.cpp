// Task<T>: laziness, values, exceptions, no stack growth on long await chains, and the
// two forms for operations that finish within their call (empty, start()).
#include "runtime/task.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "runtime/event_loop.hpp"

using namespace commbench;

namespace {

Task<int> value(int v) {
  co_return v;
}
Task<int> add(int a, int b) {
  co_return co_await value(a) + co_await value(b);
}
Task<void> thrower() {
  throw std::runtime_error("boom");
  co_return;
}

TEST(Task, IsLazyUntilAwaited) {
  bool ran = false;
  auto body = [&]() -> Task<void> {  // a named lambda: the coroutine refers to its captures
    ran = true;
    co_return;
  };
  auto t = body();
  EXPECT_FALSE(ran);
  EventLoop loop;
  loop.run(std::move(t));
  EXPECT_TRUE(ran);
}

TEST(Task, ReturnsValuesThroughAwaitChain) {
  EventLoop loop;
  EXPECT_EQ(loop.run(add(20, 22)), 42);
}

TEST(Task, ExceptionPropagatesToAwaiter) {
  EventLoop loop;
  auto outer = []() -> Task<std::string> {
    try {
      co_await thrower();
    } catch (const std::runtime_error& e) {
      co_return std::string(e.what());
    }
    co_return std::string("not thrown");
  };
  EXPECT_EQ(loop.run(outer()), "boom");
  EXPECT_THROW(loop.run(thrower()), std::runtime_error);
}

TEST(Task, MoveOnlyResult) {
  EventLoop loop;
  auto t = []() -> Task<std::unique_ptr<int>> { co_return std::make_unique<int>(7); };
  EXPECT_EQ(*loop.run(t()), 7);
}

// A million synchronous completions in a row: with symmetric transfer this runs in
// constant stack; without it, it would overflow the stack and crash.
TEST(Task, SymmetricTransferKeepsStackFlat) {
#if !defined(__OPTIMIZE__)
  // GCC turns the resume of a returned handle into a tail call only when optimizing
  // (sibling-call optimization, -O2); the optimized presets check this property.
  GTEST_SKIP() << "unoptimized build: symmetric transfer is not a tail call";
#endif
#if defined(__SANITIZE_THREAD__)
  // TSan instruments every function's exit, so no call is a tail call (and the tsan
  // preset's -O1 does not enable sibling calls anyway): a million nested resumes.
  GTEST_SKIP() << "ThreadSanitizer build: symmetric transfer is not a tail call";
#endif
  EventLoop loop;
  auto loop_body = []() -> Task<long> {
    long sum = 0;
    for (int i = 0; i < 1'000'000; ++i) sum += co_await value(1);
    co_return sum;
  };
  EXPECT_EQ(loop.run(loop_body()), 1'000'000);
}

// An empty Task<void> is a finished one: what a comm returns for a write that completed
// within its call (no frame).
TEST(Task, EmptyVoidTaskIsFinished) {
  Task<void> empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_TRUE(empty.done());
  EventLoop loop;
  loop.run(Task<void>{});
  bool after = false;
  auto outer = [&]() -> Task<int> {
    co_await Task<void>{};
    after = true;
    co_return 5;
  };
  EXPECT_EQ(loop.run(outer()), 5);
  EXPECT_TRUE(after);
}

// start() runs the task in the caller up to its first suspension; awaiting it then waits
// for the rest, and the rest runs once, on the loop.
TEST(Task, StartRunsUntilTheFirstSuspensionAndAwaitWaitsForTheRest) {
  EventLoop loop;
  int steps = 0;
  auto body = [&]() -> Task<void> {
    ++steps;
    co_await loop.yield();
    ++steps;
  };
  auto t = body();
  t.start();
  EXPECT_EQ(steps, 1);
  EXPECT_TRUE(t.started());
  EXPECT_FALSE(t.done());
  t.start();  // a second start does nothing
  EXPECT_EQ(steps, 1);
  auto outer = [&](Task<void> inner) -> Task<int> {
    co_await std::move(inner);
    co_return steps;
  };
  EXPECT_EQ(loop.run(outer(std::move(t))), 2);
}

// A started task that ended within start() keeps its result and its error for the await.
TEST(Task, StartedTaskThatEndedReportsWhenAwaited) {
  EventLoop loop;
  auto ok = value(3);
  ok.start();
  EXPECT_TRUE(ok.done());
  EXPECT_EQ(loop.run(std::move(ok)), 3);
  auto bad = thrower();
  EXPECT_NO_THROW(bad.start());
  EXPECT_TRUE(bad.done());
  EXPECT_THROW(loop.run(std::move(bad)), std::runtime_error);
}

// A started task still suspended when the loop runs it to the end directly.
TEST(Task, LoopRunsAStartedTaskWithoutResumingItTwice) {
  EventLoop loop;
  int resumed = 0;
  auto body = [&]() -> Task<int> {
    co_await loop.yield();
    ++resumed;
    co_return resumed;
  };
  auto t = body();
  t.start();
  EXPECT_EQ(loop.run(std::move(t)), 1);
}

TEST(Task, DestroyingUnstartedTaskIsSafe) {
  auto t = value(1);
  EXPECT_TRUE(t.valid());
  EXPECT_FALSE(t.done());
}

}  // namespace
