// bandwidth: windowed throughput, OSU's method (osu_bw; with --bidirectional osu_bibw):
// a window of messages in flight, then a 1-byte ack. Every --backend is measured
// interleaved; the figure is the median over repetitions in MB/s (10^6 bytes/s).
// The timed loop is below, once for the raw baselines (a template over their post/wait
// primitives) and once for the coroutine comm.
#include <algorithm>

#include "drivers/run_loop.hpp"
#include "drivers/window_buffers.hpp"
#include "harness/pattern.hpp"
#include "harness/stats.hpp"
#include "runtime/when_all.hpp"
#include "session/bench_session.hpp"
#include "session/point_cells.hpp"

using namespace commbench;

namespace {

// --help's first lines.
constexpr const char* kHelp =
    "Windowed bandwidth over the coroutine comm backends and their raw baselines.\n"
    "Run with: mpirun -np 2 bandwidth --backend tcp,raw-tcp";

// One repetition: `iters` windows. Rank 0 sends `window` messages with all of them in
// flight, rank 1 receives them and answers with a 1-byte ack; with `bidirectional` both
// ranks send and receive a window at once (no ack). Window i carries pattern seed
// seed + i. The receives of a window go in batches of window_slots() (the receive memory
// budget, drivers/window_buffers.hpp). Each returns the wrong bytes this rank received.
struct Windows : Repetition {
  size_t window = 0;
  bool bidirectional = false;
};

// A coroutine per message of a window, as the comm's concurrent reads and writes need.
Task<void> write_one(CommDriver& c, const Message& m) {
  co_await c.send(m);
}
Task<void> read_one(CommDriver& c, Message& m) {
  co_await c.recv(m);
}

Task<void> send_window(CommDriver& c, const Message& out, size_t window) {
  std::vector<Task<void>> writes;
  writes.reserve(window);
  for (size_t j = 0; j < window; ++j) writes.push_back(write_one(c, out));
  co_await when_all(std::move(writes));
}

// Concurrent reads each own their message: window_slots() of them at a time, the budget
// the raw baselines' windows keep too.
Task<size_t> receive_window(CommDriver& c, const Windows& r, uint64_t seed) {
  size_t slots = window_slots(r.size, r.window);
  std::vector<Message>& rx = c.window_messages(slots);
  size_t wrong = 0;
  for (size_t done = 0; done < r.window;) {
    size_t batch = std::min(slots, r.window - done);
    std::vector<Task<void>> reads;
    reads.reserve(batch);
    for (size_t j = 0; j < batch; ++j) reads.push_back(read_one(c, rx[j]));
    co_await when_all(std::move(reads));
    if (r.validate)
      for (size_t j = 0; j < batch; ++j) wrong += c.check(rx[j], r.size, seed);
    done += batch;
  }
  co_return wrong;
}

Task<size_t> windows(Windows r, CommDriver& c) {
  Message out = c.outgoing(r.size);
  size_t wrong = 0;
  for (size_t i = 0; i < r.iters; ++i) {
    if (r.validate) c.fill(r.size, r.seed + i);
    if (r.bidirectional) {
      size_t w = 0;
      auto recv = [&]() -> Task<void> { w = co_await receive_window(c, r, r.seed + i); };
      co_await when_all(send_window(c, out, r.window), recv());
      wrong += w;
    } else if (c.rank() == 0) {
      co_await send_window(c, out, r.window);
      co_await c.recv_ack();
    } else {
      wrong += co_await receive_window(c, r, r.seed + i);
      co_await c.send_ack();
    }
  }
  c.settle();  // the last reads' copies, where they complete in stream order
  co_return wrong;
}

template <RawTransport T>
void post_receives(T& t, size_t size, size_t count) {
  WindowBuffers& rx = t.window_buffers();
  for (size_t w = 0; w < count; ++w) t.post_recv(rx[w], size);
}

// Waits for the posted batch of `first` receives, checks it, posts the next batch, and
// so on to the end of the window.
template <RawTransport T>
size_t finish_receives(T& t, const Windows& r, size_t slots, size_t first, uint64_t seed) {
  WindowBuffers& rx = t.window_buffers();
  size_t wrong = 0;
  size_t batch = first;
  for (size_t done = 0;;) {
    t.wait_recvs();
    if (r.validate)
      for (size_t w = 0; w < batch; ++w) wrong += check_pattern(rx[w], r.size, seed);
    done += batch;
    if (done >= r.window) break;
    batch = std::min(slots, r.window - done);
    post_receives(t, r.size, batch);
  }
  return wrong;
}

template <RawTransport T>
size_t windows(const Windows& r, T& t) {
  std::byte* out = t.send_buffer();
  // Only a rank that receives windows holds their buffers: a sender that also faulted in
  // a window's worth (1 GiB at 16 MiB) would carry memory the comm's sender never has.
  const bool receives = r.bidirectional || t.rank() != 0;
  size_t slots =
      receives ? t.window_buffers().prepare(r.size, r.window, t.shared_window_buffer(r.validate))
               : 0;
  size_t first = std::min(slots, r.window);
  size_t wrong = 0;
  for (size_t i = 0; i < r.iters; ++i) {
    if (r.validate) fill_pattern(out, r.size, r.seed + i);
    if (r.bidirectional) {
      // Receives first, so the peer's sends find them posted (osu_bibw's order).
      post_receives(t, r.size, first);
      for (size_t w = 0; w < r.window; ++w) t.post_send(out, r.size);
      wrong += finish_receives(t, r, slots, first, r.seed + i);
      t.wait_sends();
    } else if (t.rank() == 0) {
      for (size_t w = 0; w < r.window; ++w) t.post_send(out, r.size);
      t.wait_sends();
      t.recv_ack();
    } else {
      post_receives(t, r.size, first);
      wrong += finish_receives(t, r, slots, first, r.seed + i);
      t.send_ack();
    }
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  BenchSession s(argc, argv, "bandwidth", BenchKind::bandwidth, kHelp);
  const BenchOptions& o = s.options();
  uint64_t seed = 1;

  auto run = [&](Driver& d, size_t size, size_t n) {
    Windows r{{size, n, seed, o.validate}, o.window, o.bidirectional};
    seed += n;
    return run_loop(d, size, [&](auto&... on) { return windows(r, on...); });
  };
  auto warm = [&](Driver& d, size_t size) { run(d, size, s.warmup_for(size)); };
  auto rep = [&](Driver& d, size_t, size_t size, size_t, Point& p) {
    size_t n = s.iters_per_rep(size);
    s.boot().barrier();  // both ranks start the repetition together
    uint64_t t0 = EventLoop::now_ns();
    p.wrong += run(d, size, n);
    double secs = static_cast<double>(EventLoop::now_ns() - t0) / 1e9;
    p.iterations += n;
    double bytes = static_cast<double>(size) * static_cast<double>(o.window) *
                   static_cast<double>(n) * (o.bidirectional ? 2.0 : 1.0);
    p.samples.push_back(bytes / secs / 1e6);
  };
  auto emit = [&](Driver& d, size_t size, Point& p, ResultRow& row) {
    Summary sum = summarize(p.samples);
    row.set("benchmark", std::string(o.bidirectional ? "bibw" : "bandwidth"))
        .set("window", o.window)
        .set("bandwidth_MBps", sum.p50)
        .set("bandwidth_MBps_min", sum.min)
        .set("bandwidth_MBps_max", sum.max);
    s.print_row(point_cells(size, d, {sum.p50, sum.min, sum.max}, 1, o.validate, p.wrong));
  };
  s.sweep(warm, rep, emit, {"size", "backend", "progress", "MB/s", "min", "max", "wrong"},
          {"bytes", "", "", "p50", "MB/s", "MB/s", "bytes"});
  return s.finish();
}
