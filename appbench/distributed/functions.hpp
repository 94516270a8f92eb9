// Task functions by name, as the scheduler's Compute messages name them. A function is a
// coroutine so a long kernel can hand the loop back between slices of work: workers run
// tasks on the same thread that drives communication (a 2-core machine running 2 workers
// has no spare core for Dask's executor thread), so a block being added must not stop
// the transfers of the next blocks.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "distributed/value.hpp"
#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"

namespace commbench::app {

class TaskContext {
 public:
  TaskContext(EventLoop& loop, uint64_t slice_ns) : loop_(loop), slice_ns_(slice_ns) {
    start_ = EventLoop::now_ns();
  }
  // True when the task has run longer than its slice since it last yielded.
  bool slice_over() const noexcept { return EventLoop::now_ns() - start_ >= slice_ns_; }
  // co_await ctx.yield(): one loop turn for communication, then a fresh slice.
  Task<void> yield() {
    co_await loop_.yield();
    start_ = EventLoop::now_ns();
  }

 private:
  EventLoop& loop_;
  uint64_t slice_ns_;
  uint64_t start_;
};

// Rows a table kernel processes between two looks at its slice (`if (ctx.slice_over())
// co_await ctx.yield();`): ~0.1-0.5 ms of work, so a peer's fetch from a computing worker
// waits at most a slice, not a whole join or sort (with --slice-us 1e9, i.e. no yields, a
// peer's 8 MB sort piece waited up to 74 ms; with the default 1000, up to 14 ms).
constexpr size_t kRowsPerStripe = 16384;

using TaskFunction = std::function<Task<Value>(TaskContext&, const std::vector<const Value*>& deps,
                                               std::span<const std::byte> args)>;

class FunctionTable {
 public:
  void add(const std::string& name, TaskFunction fn) { fns_[name] = std::move(fn); }
  // Throws std::invalid_argument naming the function when it is unknown.
  const TaskFunction& get(const std::string& name) const;

 private:
  std::map<std::string, TaskFunction> fns_;
};

}  // namespace commbench::app
