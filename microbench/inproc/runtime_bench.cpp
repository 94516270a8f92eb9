// In-process costs of the runtime: what one resume, one yield and one timer cost; and,
// where tcp:uring is built, the parts of its cost: a raw io_uring submit/complete round
// trip on a socketpair beside the same bytes through plain send()/recv(), and the round
// trip through the backend's ring (UringOp: SQE, batch submit, CQE, resume by the loop).
#include <benchmark/benchmark.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <stdexcept>

#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"
#if COMMBENCH_HAVE_URING
#include <liburing.h>

#include "comm/errors.hpp"
#include "tcp/uring_ring.hpp"
#endif

using namespace commbench;

namespace {

Task<int> leaf(int v) {
  co_return v + 1;
}

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

// --- the parts of tcp:uring's cost ----------------------------------------------------

constexpr size_t kSmall = 64;  // one small message, as ping-pong's first sizes
constexpr int kSmallResult = static_cast<int>(kSmall);

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) != 0)
      throw std::runtime_error("socketpair failed");
  }
  ~SocketPair() {
    ::close(fd[0]);
    ::close(fd[1]);
  }
};

// The readiness path's system calls for the same bytes: one send(), one recv() (data
// already there: what tcp:epoll pays when a message is waiting).
void BM_SocketSendRecv64(benchmark::State& state) {
  SocketPair sp;
  std::byte out[kSmall]{}, in[kSmall];
  for (auto _ : state) {
    if (::send(sp.fd[0], out, kSmall, 0) != kSmallResult) state.SkipWithError("send");
    if (::recv(sp.fd[1], in, kSmall, 0) != kSmallResult) state.SkipWithError("recv");
  }
}
BENCHMARK(BM_SocketSendRecv64);

#if COMMBENCH_HAVE_URING
struct Ring {
  io_uring ring{};
  bool ok = false;
  Ring() { ok = io_uring_queue_init(8, &ring, 0) == 0; }
  ~Ring() {
    if (ok) io_uring_queue_exit(&ring);
  }
};

// Reaps `n` CQEs, waiting for each that has not arrived: false on an error result.
bool reap(io_uring& ring, int n) {
  bool good = true;
  for (int i = 0; i < n; ++i) {
    io_uring_cqe* cqe = nullptr;
    if (io_uring_wait_cqe(&ring, &cqe) != 0) return false;
    good = good && cqe->res == kSmallResult;
    io_uring_cqe_seen(&ring, cqe);
  }
  return good;
}

// One io_uring_submit carrying a 64-byte send on one end and a recv on the other
// (linked, so the recv runs after the send has queued the data), then both CQEs reaped:
// the floor of a completion-based message when the data is there at once.
void BM_UringSendRecv64Batched(benchmark::State& state) {
  SocketPair sp;
  Ring r;
  if (!r.ok) return state.SkipWithError("io_uring_queue_init refused");
  std::byte out[kSmall]{}, in[kSmall];
  for (auto _ : state) {
    io_uring_sqe* s = io_uring_get_sqe(&r.ring);
    io_uring_prep_send(s, sp.fd[0], out, kSmall, 0);
    s->flags |= IOSQE_IO_LINK;
    io_uring_prep_recv(io_uring_get_sqe(&r.ring), sp.fd[1], in, kSmall, 0);
    io_uring_submit(&r.ring);
    if (!reap(r.ring, 2)) state.SkipWithError("short send or recv");
  }
}
BENCHMARK(BM_UringSendRecv64Batched);

// A receive posted before its data (a waiting reader, as in ping-pong): recv submitted,
// then the send submitted, and both reaped. The recv finds no data, arms the kernel's
// poll and completes from the send's wake-up: two submits and the poll path.
void BM_UringRecvThenSend64(benchmark::State& state) {
  SocketPair sp;
  Ring r;
  if (!r.ok) return state.SkipWithError("io_uring_queue_init refused");
  std::byte out[kSmall]{}, in[kSmall];
  for (auto _ : state) {
    io_uring_prep_recv(io_uring_get_sqe(&r.ring), sp.fd[1], in, kSmall, 0);
    io_uring_submit(&r.ring);
    io_uring_prep_send(io_uring_get_sqe(&r.ring), sp.fd[0], out, kSmall, 0);
    io_uring_submit(&r.ring);
    if (!reap(r.ring, 2)) state.SkipWithError("short send or recv");
  }
}
BENCHMARK(BM_UringRecvThenSend64);

// The same exchange through the backend's ring on the event loop: a coroutine awaits a
// send (UringOp: SQE, submitted with the turn's batch, CQE reaped, resumed through the
// ready queue), then a recv of those bytes. The difference to the raw figures above is
// what the coroutine layer adds.
void BM_UringRingSendRecv64(benchmark::State& state) {
  SocketPair sp;
  EventLoop loop;
  std::shared_ptr<tcp::UringRing> ring;
  try {
    ring = tcp::UringRing::create(loop);
  } catch (const BackendUnavailable& e) {
    return state.SkipWithError(e.what());
  }
  std::byte out[kSmall]{}, in[kSmall];
  iovec iov{out, kSmall};
  msghdr mh{};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  auto body = [&]() -> Task<void> {
    for (auto _ : state) {
      if (co_await ring->sendmsg(sp.fd[0], &mh, MSG_NOSIGNAL, {}) != kSmallResult)
        state.SkipWithError("send");
      if (co_await ring->recv(sp.fd[1], in, kSmall, 0, {}) != kSmallResult)
        state.SkipWithError("recv");
    }
  };
  loop.run(body());
}
BENCHMARK(BM_UringRingSendRecv64);
#endif  // COMMBENCH_HAVE_URING

}  // namespace
