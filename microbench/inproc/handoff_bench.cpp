// What a progress thread's handoff costs (issue 16): a coroutine on the loop asks another
// thread for a completion and is resumed when that thread posts it through a Handoff. The
// "thread" stands in for a progress thread that finds a request complete; it only spins on
// a mailbox, so the figure is the cross-thread handoff alone, without any library.
//   wake:0  the loop keeps spinning while it waits (a core per thread): enqueue, the
//           loop's next poll takes it, resume;
//   wake:1  the loop arms and sleeps in epoll at once (the thread policies' default):
//           the post also writes the eventfd and the loop wakes from epoll_wait.
// Per iteration: one round trip loop -> thread -> loop.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/event_loop.hpp"
#include "runtime/handoff.hpp"
#include "runtime/task.hpp"

using namespace commbench;

namespace {

void BM_HandoffRoundTrip(benchmark::State& state) {
  const bool wake = state.range(0) != 0;
  LoopOptions opts;
  if (!wake) opts.spin_budget = std::chrono::seconds(10);
  EventLoop loop(opts);
  Handoff handoff(loop, "bench-handoff");
  handoff.set_sleep_while_expecting(wake);
  std::atomic<HandoffNode*> mailbox{nullptr};
  std::atomic<bool> stop{false};
  std::thread helper([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      HandoffNode* n = mailbox.exchange(nullptr, std::memory_order_acquire);
      if (n) handoff.post(n);
    }
  });
  struct AskThread {
    Handoff& h;
    std::atomic<HandoffNode*>& box;
    HandoffNode node;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> c) {
      node.handle = c;
      h.expect();
      box.store(&node, std::memory_order_release);
    }
    void await_resume() { h.unexpect(); }
  };
  auto body = [&]() -> Task<void> {
    for (auto _ : state) co_await AskThread{handoff, mailbox, {}};
  };
  loop.run(body());
  stop.store(true);
  helper.join();
  HandoffStats st = handoff.stats();
  state.counters["wakes_per_iter"] =
      benchmark::Counter(static_cast<double>(st.wakes), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_HandoffRoundTrip)->ArgName("wake")->Arg(0)->Arg(1)->UseRealTime();

// The producer's side alone: post + the loop's take, on one thread (no cache line moves
// between cores): the floor under the round trip above.
void BM_HandoffPostTakeSameThread(benchmark::State& state) {
  EventLoop loop;
  Handoff handoff(loop, "bench-handoff");
  HandoffNode node;
  auto body = [&]() -> Task<void> {
    struct PostSelf {
      Handoff& h;
      HandoffNode& n;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> c) {
        n.handle = c;
        h.post(&n);
        h.take();
      }
      void await_resume() const noexcept {}
    };
    for (auto _ : state) co_await PostSelf{handoff, node};
  };
  loop.run(body());
}
BENCHMARK(BM_HandoffPostTakeSameThread);

}  // namespace
