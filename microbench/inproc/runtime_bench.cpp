// In-process costs of the runtime: what one resume, one yield and one timer cost.
#include <benchmark/benchmark.h>

#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"

using namespace commbench;

namespace {

Task<int> leaf(int v) { co_return v + 1; }

// A task awaiting a task that completes at once: frame allocation + start + symmetric
// transfer back. The figure the foundation issue bounds (<= 20 ns).
void BM_TaskAwaitResume(benchmark::State& state) {
  EventLoop loop;
  auto outer = [&]() -> Task<void> {
    int x = 0;
    for (auto _ : state) {
      x = co_await leaf(x);
      benchmark::DoNotOptimize(x);
    }
  };
  loop.run(outer());
}
BENCHMARK(BM_TaskAwaitResume);

// One trip through the ready queue: suspend, queue, resume by the loop.
void BM_LoopYield(benchmark::State& state) {
  EventLoop loop;
  auto body = [&]() -> Task<void> {
    for (auto _ : state) co_await loop.yield();
  };
  loop.run(body());
}
BENCHMARK(BM_LoopYield);

// Inserting and removing a timer with `depth` other timers pending.
void BM_TimerInsertRemove(benchmark::State& state) {
  TimerQueue q;
  std::vector<TimerNode> others(static_cast<size_t>(state.range(0)));
  uint64_t t = 1000;
  for (auto& n : others) q.push((n.deadline_ns = t += 7919 % 1000, &n));
  TimerNode mine;
  uint64_t d = 0;
  for (auto _ : state) {
    mine.deadline_ns = (d += 104729) % 100000;
    q.push(&mine);
    q.remove(&mine);
  }
}
BENCHMARK(BM_TimerInsertRemove)->Arg(0)->Arg(64)->Arg(4096);

}  // namespace
