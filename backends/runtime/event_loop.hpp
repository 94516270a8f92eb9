// The one event loop of a process: ready queue, progress engines, timers, epoll.
//
// A turn runs the coroutines that were ready when it began, polls every registered
// poller that has work, fires expired timers and, while anyone waits on a descriptor,
// peeks at epoll without blocking (or, while one reader is the only prompt waiter, makes
// that reader's recv for it: FdProbe). When a turn did nothing the loop is idle: it keeps
// spinning for `spin_budget` (a message arriving within microseconds is picked up at
// once), then arms the pollers and blocks in epoll until a descriptor, a poller's wake fd
// or the next timer needs it. A poller that cannot arm (MPI) makes the loop nap instead,
// with a back-off that doubles up to `max_nap`, so an idle rank yields its core.
#pragma once

#include <chrono>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "runtime/cancel.hpp"
#include "runtime/poller.hpp"
#include "runtime/ready_queue.hpp"
#include "runtime/task.hpp"
#include "runtime/timer_queue.hpp"

namespace commbench {

// Spinning politely (sched_yield) only pays when ranks share cores: with a core each it
// is a no-op, but on a loaded machine every yield hands the core to another process for a
// whole time slice (measured: a 4 KiB MPI ping-pong went from 5 us to 3.4 ms). So the
// default is to yield only when the launcher put more ranks on this node than it has
// CPUs (OMPI_COMM_WORLD_LOCAL_SIZE / MPI_LOCALNRANKS), and never otherwise.
std::chrono::nanoseconds default_spin_yield_after();

struct LoopOptions {
  // How long an idle loop keeps polling before it arms and blocks.
  std::chrono::nanoseconds spin_budget{50'000};
  // After this long idle, each spin turn also yields the core (sched_yield) to whoever
  // else is runnable on it; a reply within this window is caught at full speed.
  std::chrono::nanoseconds spin_yield_after = default_spin_yield_after();
  // First and largest nap while a poller that cannot arm still has work.
  std::chrono::nanoseconds min_nap{2'000};
  std::chrono::nanoseconds max_nap{1'000'000};
};

struct LoopStats {
  uint64_t turns = 0;         // turns of the loop
  uint64_t blocks = 0;        // times it blocked in epoll with every poller armed
  uint64_t naps = 0;          // bounded sleeps because a poller could not arm
  uint64_t slept_ns = 0;      // wall time spent blocked or napping
  uint64_t peeks = 0;         // zero-timeout epoll calls of turns
  uint64_t probes = 0;        // turns that made a waiting reader's probe instead of a peek
  uint64_t retry_yields = 0;  // cores given up by waiters retrying in vain (retry())
};

class EventLoop;

// What every cancellable wait of the loop keeps: its token and registration, the suspended
// coroutine, and why it was cancelled, recorded at cancel time (when it resumes, the
// token's state may be gone).
class CancellableWait {
 public:
  bool await_ready() const noexcept { return token_.cancelled(); }

 protected:
  explicit CancellableWait(CancelToken token) noexcept : token_(token) {}
  // From the cancel callback: records why, then resumes the waiter on `loop`.
  void resume_cancelled(EventLoop& loop);
  // From await_resume: throws if the wait was cancelled, while or before it waited.
  void throw_if_cancelled(const char* what) const {
    if (cancelled_) CancelToken::throw_cancelled(timed_out_, what);
    if (!handle_) token_.throw_cancelled(what);
  }
  CancelToken token_;
  CancelRegistration reg_;
  std::coroutine_handle<> handle_;
  bool cancelled_ = false;
  bool timed_out_ = false;
};

// A reader's own attempt at the operation it waits for (a non-blocking recv, say), which
// the loop makes for it instead of asking epoll. `attempt` returns true when the operation
// finished (data, end of stream or an error, kept in `ctx` for the waiter) and false when
// it would still block. Why: a reader that spins on epoll pays, once data arrives, the
// epoll call that sees it and then its own recv; a raw loop's recv that spins finds and
// takes the data in one call. With a probe the spin is the recv itself (see turn()).
struct FdProbe {
  bool (*attempt)(void* ctx) = nullptr;
  void* ctx = nullptr;
  explicit operator bool() const noexcept { return attempt != nullptr; }
};

// Awaitable: suspends until a watched descriptor is readable or writable (or hung up);
// with a probe, until the probe's attempt finished (or the descriptor hung up).
class FdWait : public CancellableWait {
 public:
  void await_suspend(std::coroutine_handle<> h);
  uint32_t await_resume();  // epoll event bits; throws if cancelled

 private:
  friend class EventLoop;
  // Made by EventLoop::readable / writable / incoming only: the loop handles a probe on a
  // prompt reader and nowhere else (run_probe wakes the reader), so no other combination
  // may exist. `lazy`: a wait that a few microseconds of delay cost nothing (incoming()).
  FdWait(EventLoop& loop, int fd, bool for_write, CancelToken token, FdProbe probe = {},
         bool lazy = false) noexcept
      : CancellableWait(token),
        loop_(loop),
        fd_(fd),
        for_write_(for_write),
        lazy_(lazy),
        probe_(probe) {}
  static void cancel_cb(CancelRegistration* r);
  // True when the wait is over: no probe (readiness is enough) or the probe finished.
  bool attempt() const { return !probe_ || probe_.attempt(probe_.ctx); }
  EventLoop& loop_;
  int fd_;
  bool for_write_;
  bool lazy_;
  FdProbe probe_;
  uint32_t events_ = 0;
};

// Awaitable: resumes after a deadline on the monotonic clock.
class SleepUntil : public CancellableWait {
 public:
  SleepUntil(EventLoop& loop, uint64_t deadline_ns, CancelToken token) noexcept
      : CancellableWait(token), loop_(loop), deadline_ns_(deadline_ns) {}
  void await_suspend(std::coroutine_handle<> h);
  void await_resume();

 private:
  static void fire_cb(TimerNode* n);
  static void cancel_cb(CancelRegistration* r);
  EventLoop& loop_;
  uint64_t deadline_ns_;
  TimerNode timer_;
};

class EventLoop {
 public:
  explicit EventLoop(LoopOptions options = {});
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  static uint64_t now_ns() noexcept;

  // --- coroutines ------------------------------------------------------------------
  void schedule(std::coroutine_handle<> h) { ready_.push(h); }
  // A waiter whose test found nothing and will test again next turn (the cooperative
  // policies): queued like schedule(h). Such a waiter keeps the loop busy, so the idle
  // rule's yield never engages; where ranks outnumber CPUs (spin_yield_after set) a
  // waiter that has found nothing for spin_yield_after yields the core here instead, or
  // it holds its CPU for whole time slices while the peer it waits for cannot run
  // (merge across virtual hosts in 8 ms steps, results/app-paradox-2026-11-29).
  void retry(std::coroutine_handle<> h) {
    ready_.push(h);
    if (options_.spin_yield_after != std::chrono::nanoseconds::max()) [[unlikely]]
      retry_found_nothing();
  }
  // A waiter's test succeeded: the stretch of fruitless retries is over.
  void retry_found_something() noexcept { fruitless_since_ns_ = 0; }

  // Runs the loop until `task` finishes and returns its result (or rethrows).
  template <typename T>
  T run(Task<T> task) {
    if (task.valid() && !task.started()) schedule(task.handle());
    while (!task.done()) run_once();
    return task.result();
  }

  // Runs the loop for a while (everything ready, every poller, every timer).
  void run_for(std::chrono::nanoseconds d) { run(sleep_task(d)); }
  // Runs the loop until every detached task has finished, at most `limit`; true if they
  // all did. For owners that are about to destroy what those tasks use (a backend, the
  // loop itself): a fixed grace period is a guess that a loaded machine gets wrong.
  bool settle_detached(std::chrono::nanoseconds limit);

  // One turn, then the idle policy if the turn did nothing.
  void run_once();

  // True while a coroutine is queued to run. A coroutine that polls may keep polling
  // while this is false without holding anyone up who is ready (pollers, timers and
  // descriptors are looked at on the next turn, so it must still yield soon).
  bool others_ready() const noexcept { return !ready_.empty(); }
  // How many more tests a cooperative waiter (ucx:cooperative, mpi:cooperative) makes
  // before it yields, while others_ready() is false. A turn of the loop costs about what
  // a test does, so with one test per turn a message that arrived just after a test
  // waited a whole turn more than a raw baseline's tight loop would. ucx:cooperative /
  // raw-ucx: 1-8 B 1.07-1.09x -> 1.05x, 512 B 1.06x -> 1.02x, 2 KiB 1.12x -> 1.02x
  // (results/quiet-2026-11-22/ab-spin8); mpi:cooperative: results/ab-layer-trims.
  static constexpr int kCooperativeExtraTests = 8;
  // Awaitable: goes to the back of the ready queue.
  auto yield() noexcept {
    struct Yield {
      EventLoop& loop;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) { loop.schedule(h); }
      void await_resume() const noexcept {}
    };
    return Yield{*this};
  }

  SleepUntil sleep_for(std::chrono::nanoseconds d, CancelToken token = {}) {
    return SleepUntil(*this, now_ns() + static_cast<uint64_t>(d.count()), token);
  }
  SleepUntil sleep_until(uint64_t deadline_ns, CancelToken token = {}) {
    return SleepUntil(*this, deadline_ns, token);
  }

  // --- detached tasks ----------------------------------------------------------------
  // Errors escaping spawned tasks go to the handler (default: one line on stderr).
  void set_error_handler(std::function<void(std::exception_ptr)> handler) {
    error_handler_ = std::move(handler);
  }
  void report_error(std::exception_ptr e);
  size_t detached_errors() const noexcept { return detached_errors_; }
  size_t live_detached() const noexcept { return live_detached_; }
  void detached_started() noexcept { ++live_detached_; }
  void detached_finished() noexcept { --live_detached_; }

  // --- progress engines --------------------------------------------------------------
  void add_poller(Poller* p);
  void remove_poller(Poller* p);

  // --- descriptors (edge-triggered; always try the operation before waiting) ----------
  void watch_fd(int fd);
  // Wakes any waiter (it sees EPOLLHUP) and forgets the descriptor; call before close().
  void unwatch_fd(int fd);
  // With a probe, the loop makes the reader's own attempt instead of peeking at epoll
  // while this is the only prompt descriptor wait (FdProbe), and confirms epoll's edges
  // with it.
  FdWait readable(int fd, CancelToken token = {}, FdProbe probe = {}) {
    return FdWait(*this, fd, false, token, probe);
  }
  // A listening socket's next connection: a lazy wait, which does not keep a reader from
  // probing (while one does, the loop peeks at epoll for lazy waits every 8th turn only:
  // a peer's connect can wait a few microseconds, the message a reader waits for cannot).
  FdWait incoming(int fd, CancelToken token = {}) {
    return FdWait(*this, fd, false, token, {}, true);
  }
  FdWait writable(int fd, CancelToken token = {}) { return FdWait(*this, fd, true, token); }

  // --- timers ------------------------------------------------------------------------
  void add_timer(TimerNode* n, uint64_t deadline_ns) {
    n->deadline_ns = deadline_ns;
    timers_.push(n);
  }
  void cancel_timer(TimerNode* n) { timers_.remove(n); }

  const LoopStats& stats() const noexcept { return stats_; }
  const LoopOptions& options() const noexcept { return options_; }
  void set_options(const LoopOptions& o) { options_ = o; }

 private:
  friend class FdWait;
  Task<void> sleep_task(std::chrono::nanoseconds d) { co_await sleep_for(d); }
  struct FdSlot {
    bool watched = false;
    FdWait* reader = nullptr;
    FdWait* writer = nullptr;
  };
  FdSlot& slot(int fd);
  void wake(FdWait*& waiter, uint32_t events);
  void forget(FdWait* w) noexcept;  // a waiter leaves: woken or cancelled
  bool turn();
  bool fire_timers(uint64_t now);
  bool poll_epoll(int64_t timeout_ns);
  bool peek_epoll();
  bool run_probe();
  void idle();
  void retry_found_nothing();  // retry()'s slow side: when to yield the core

  LoopOptions options_;
  ReadyQueue ready_;
  std::vector<Poller*> pollers_;
  TimerQueue timers_;
  int epoll_fd_ = -1;
  std::vector<FdSlot> fds_;
  size_t fd_waiters_ = 0;
  size_t lazy_waiters_ = 0;  // of fd_waiters_
  // The descriptor wait with a probe, if any. One only: its probe stands in for epoll
  // while it is the sole prompt waiter, when one recv costs what the epoll call would;
  // with more, each would cost a call per turn where one epoll call covers them all.
  FdWait* probing_ = nullptr;
  uint64_t idle_since_ns_ = 0;
  uint64_t fruitless_since_ns_ = 0;  // first fruitless retry() since a test succeeded
  uint64_t nap_ns_ = 0;
  // Clock reads are amortized over turns (see turn() and idle()).
  unsigned timer_tick_ = 0;
  unsigned idle_tick_ = 0;
  bool check_timers_now_ = true;
  bool spinning_ = false;       // idle, within the spin budget
  bool spin_yielding_ = false;  // ... and past spin_yield_after
  bool have_pwait2_ = true;     // false once the kernel answered ENOSYS (see poll_epoll)
  LoopStats stats_;
  std::function<void(std::exception_ptr)> error_handler_;
  size_t detached_errors_ = 0;
  size_t live_detached_ = 0;
};

}  // namespace commbench
