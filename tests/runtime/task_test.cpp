// Task<T>: laziness, values, exceptions, and no stack growth on long await chains.
#include <gtest/gtest.h>

#include <stdexcept>

#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"

using namespace commbench;

namespace {

Task<int> value(int v) { co_return v; }
Task<int> add(int a, int b) { co_return co_await value(a) + co_await value(b); }
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

TEST(Task, DestroyingUnstartedTaskIsSafe) {
  auto t = value(1);
  EXPECT_TRUE(t.valid());
  EXPECT_FALSE(t.done());
}

}  // namespace
