// Multi-rank checks of the mpi:// backend that the in-process comm suite cannot make:
//   cycles N     10,000 connect/echo/close cycles between one pair reuse a handful of tags
//   idle         a listening rank with nothing to do stays under 20% of one core
//   noservice    connecting to a service nobody listens on, or to a rank that does not
//                exist, fails with ConnectError within the timeout
//   lanes        12 connections to one rank at once: the first 8 ends get a lane and
//                their small single-frame messages arrive without a header, the rest
//                fall back to framed messages on the pair communicator; every shape
//                echoes intact on both, and the lanes come back after the closes
//   cancelled-write  a write of a large message that times out (its peer is not reading)
//                throws, and the staging copy of its header, which MPI may still read,
//                is held while its sends are in the graveyard and freed once they end
//   peer-exit    a read pending on a peer that closes everything and calls MPI_Finalize
//                fails with CommClosedError instead of hanging
//   finalize-skew  rank 1 calls MPI_Finalize right after an echo while rank 0 keeps its
//                engine polling MPI for 300 ms first: both MPI_Finalize calls return
//                (MPICH 4.0.2 over UCX tcp hung here without the barrier at the end of
//                mpi::Context::release_communicators; ctest runs it with UCX_TLS=tcp)
// Run as: mpirun -np 2 mpi_backend_test MODE [N]  (cycles also works with -np 1). Prints
// one PASS/FAIL line per rank and exits non-zero on failure.
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/errors.hpp"
#include "comm/registry.hpp"
#include "mpi/mpi_context.hpp"
#include "runtime/timeout.hpp"

using namespace commbench;
using namespace std::chrono_literals;

namespace {

int g_rank = 0, g_size = 1;

std::string bcast(std::string s, int root) {
  int n = static_cast<int>(s.size());
  MPI_Bcast(&n, 1, MPI_INT, root, MPI_COMM_WORLD);
  s.resize(static_cast<size_t>(n));
  MPI_Bcast(s.data(), n, MPI_CHAR, root, MPI_COMM_WORLD);
  return s;
}

bool report(bool ok, const std::string& what) {
  std::printf("rank %d: %s: %s\n", g_rank, ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
  return ok;
}

Task<void> pause(EventLoop& loop, std::chrono::nanoseconds d) {
  co_await loop.sleep_for(d);
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

std::unique_ptr<Backend> make(EventLoop& loop, const char* progress = "batched") {
  BackendOptions o;
  o.progress = progress;
  return registry().create("mpi", loop, o);
}

// On rank `server`: a listener that echoes every message until its peer closes, counting
// the connections that ended so in `served` and showing each message to `seen`. Returns
// the listener's address on every rank.
std::string echo_server(Backend& backend, EventLoop& loop, int server,
                        std::unique_ptr<Listener>& listener, long& served,
                        std::function<void(const Message&)> seen = {}) {
  if (g_rank == server) {
    listener = backend.make_listener(backend.default_listen_address(""));
    loop.run(listener->start([&served, seen](std::unique_ptr<Comm> c) -> Task<void> {
      Message m;
      try {
        for (;;) {
          co_await c->read(m);
          if (seen) seen(m);
          co_await c->write(m);
        }
      } catch (const CommClosedError&) {
        ++served;
      }
    }));
  }
  return bcast(listener ? listener->contact_address() : "", server);
}

// Runs `client()` on rank 0 and `server_done()` on rank `server` (one after the other
// when they are the same rank) under `limit`, then lets the last close notices arrive so
// tags and lanes retire and nothing is left unmatched at MPI_Finalize. Returns what went
// wrong, or "".
template <typename Client, typename ServerDone>
std::string run_client_server(EventLoop& loop, int server, std::chrono::seconds limit,
                              Client& client, ServerDone& server_done) {
  try {
    if (g_rank == 0 && g_rank == server) {
      loop.run(with_timeout(loop, limit, [&](CancelToken) -> Task<void> {
        co_await client();
        co_await server_done();
      }));
    } else if (g_rank == 0) {
      loop.run(with_timeout(loop, limit, [&](CancelToken) { return client(); }));
    } else if (g_rank == server) {
      loop.run(with_timeout(loop, limit, [&](CancelToken) { return server_done(); }));
    }
    loop.run(pause(loop, 50ms));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Rank `server` listens (echo until closed, "stop" ends it); rank 0 runs `client`.
bool cycles(long n) {
  EventLoop loop;
  auto backend = make(loop);
  int server = g_size - 1;
  std::unique_ptr<Listener> listener;
  bool stop = false;
  long served = 0;
  std::string addr = echo_server(*backend, loop, server, listener, served, [&](const Message& m) {
    if (m.frames.size() == 1 && m.frames[0].size == 4 &&
        std::memcmp(m.frames[0].data, "stop", 4) == 0)
      stop = true;
  });
  bool ok = true;
  long wrong = 0;
  auto client = [&]() -> Task<void> {
    auto connector = backend->make_connector();
    for (long i = 0; i <= n; ++i) {
      auto comm = co_await connector->connect(addr, 10s);
      char payload[8];
      std::memcpy(payload, i == n ? "stop" : "ping", 4);
      std::memcpy(payload + 4, &i, 4);
      Message out({Buffer{payload, static_cast<size_t>(i == n ? 4 : 8), MemoryKind::host}});
      Message in;
      co_await comm->write(out);
      co_await comm->read(in);
      if (in.frames.size() != 1 || in.frames[0].size != out.frames[0].size ||
          std::memcmp(in.frames[0].data, payload, out.frames[0].size) != 0)
        ++wrong;
      co_await comm->close();
    }
  };
  auto wait_stop = [&]() -> Task<void> {
    while (!stop || served < n + 1) co_await loop.sleep_for(1ms);
  };
  if (std::string e = run_client_server(loop, server, 600s, client, wait_stop); !e.empty())
    return report(false, "cycles: " + e);
  const auto& st = mpi::Context::current()->stats();
  ok = report(wrong == 0, "cycles: " + std::to_string(n) + " round trips, " +
                              std::to_string(wrong) + " wrong") &&
       ok;
  // One client + one server end per cycle; reuse keeps the high-water mark tiny.
  ok = report(st.tags_allocated <= 16, "cycles: tags ever allocated " +
                                           std::to_string(st.tags_allocated) + ", live " +
                                           std::to_string(st.tags_live) + ", retired " +
                                           std::to_string(st.channels_retired)) &&
       ok;
  return ok;
}

bool idle() {
  EventLoop loop;
  auto backend = make(loop);
  bool ok = true;
  if (g_rank == 1) {
    auto listener = backend->make_listener(backend->default_listen_address(""));
    loop.run(listener->start([](std::unique_ptr<Comm>) -> Task<void> { co_return; }));
    double c0 = cpu_seconds();
    auto t0 = std::chrono::steady_clock::now();
    loop.run(pause(loop, 2s));
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu = cpu_seconds() - c0;
    char line[160];
    std::snprintf(line, sizeof line,
                  "idle listener used %.3f s CPU in %.3f s (%.1f%% of a core, naps %lu)", cpu, wall,
                  100 * cpu / wall, static_cast<unsigned long>(loop.stats().naps));
    ok = report(cpu < 0.2 * wall, line);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return ok;
}

bool noservice() {
  EventLoop loop;
  auto backend = make(loop);
  bool ok = true;
  if (g_rank == 0) {
    auto connector = backend->make_connector();
    for (const std::string& addr : {"mpi://" + std::to_string(g_size - 1) + ":99",
                                    "mpi://" + std::to_string(g_size + 5) + ":1"}) {
      auto t0 = std::chrono::steady_clock::now();
      std::string why;
      try {
        loop.run(connector->connect(addr, 300ms));
      } catch (const ConnectError& e) {
        why = e.what();
      } catch (const std::exception& e) {
        why = std::string("wrong error type: ") + e.what();
      }
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ok = report(why.rfind("could not connect", 0) == 0 && s < 3,
                  "connect " + addr + " -> '" + why + "' after " + std::to_string(s) + " s") &&
           ok;
    }
  } else {
    loop.run(pause(loop, 1s));  // rank 1 polls its control channel and refuses
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return ok;
}

// Messages of every shape the wire distinguishes: bare-eligible (one host frame within
// the inline budget, zero-length included), several frames, and frames past the budget.
std::vector<std::vector<size_t>> lane_shapes() {
  return {{1}, {0}, {3000}, {8, 8}, {100000}, {}, {4, 200000, 4}, {256}};
}
constexpr size_t kBareShapes = 4;  // {1}, {0}, {3000}, {256}

std::vector<char> lane_payload(size_t conn, size_t msg, size_t bytes) {
  std::vector<char> v(bytes);
  for (size_t i = 0; i < bytes; ++i)
    v[i] = static_cast<char>((i * 31 + conn * 7 + msg * 13) & 0xff);
  return v;
}

// Rank `server` echoes; rank 0 holds kConns connections open at once and checks them.
bool lanes() {
  constexpr size_t kConns = 12, kRounds = 5, kLanes = mpi::Context::kLanes;
  EventLoop loop;
  auto backend = make(loop);
  int server = g_size - 1;
  std::unique_ptr<Listener> listener;
  long served = 0;
  std::string addr = echo_server(*backend, loop, server, listener, served);
  const auto& st = mpi::Context::current()->stats();
  const auto shapes = lane_shapes();
  long wrong = 0;
  uint64_t lanes_open = 0, lanes_after = 0, bare_before = st.bare_received;
  auto client = [&]() -> Task<void> {
    auto connector = backend->make_connector();
    std::vector<std::unique_ptr<Comm>> comms;
    for (size_t c = 0; c < kConns; ++c) comms.push_back(co_await connector->connect(addr, 10s));
    lanes_open = st.lanes_live;
    for (size_t r = 0; r < kRounds; ++r)
      for (size_t c = 0; c < kConns; ++c)
        for (size_t s = 0; s < shapes.size(); ++s) {
          std::vector<std::vector<char>> data;
          Message out;
          for (size_t f = 0; f < shapes[s].size(); ++f) {
            data.push_back(lane_payload(c, s * 10 + f, shapes[s][f]));
            out.frames.push_back(Buffer{data.back().data(), shapes[s][f], MemoryKind::host});
          }
          Message in;
          co_await comms[c]->write(out);
          co_await comms[c]->read(in);
          bool same = in.frames.size() == out.frames.size();
          for (size_t f = 0; same && f < out.frames.size(); ++f)
            same = in.frames[f].size == out.frames[f].size &&
                   (out.frames[f].size == 0 ||
                    std::memcmp(in.frames[f].data, out.frames[f].data, out.frames[f].size) == 0);
          if (!same) ++wrong;
        }
    for (auto& c : comms) co_await c->close();
    // The lanes come back once the server's close notices arrive; a new connection then
    // gets one again.
    while (st.lanes_live > 0) co_await loop.sleep_for(1ms);
    auto again = co_await connector->connect(addr, 10s);
    lanes_after = st.lanes_live;
    co_await again->close();
  };
  auto wait_served = [&]() -> Task<void> {
    while (served < static_cast<long>(kConns) + 1) co_await loop.sleep_for(1ms);
  };
  if (std::string e = run_client_server(loop, server, 120s, client, wait_served); !e.empty())
    return report(false, "lanes: " + e);
  bool ok = true;
  if (g_rank == 0) {
    ok = report(wrong == 0, "lanes: " + std::to_string(kRounds * kConns * shapes.size()) +
                                " echoes over " + std::to_string(kConns) + " connections, " +
                                std::to_string(wrong) + " wrong") &&
         ok;
    // All lanes for the peer are taken while the 12 connections are open (two ranks: 8
    // of rank 0's 12 ends; one rank: the server ends share the peer, itself, so 4
    // connections have a lane at both ends). After the closes the new connection gets
    // one again (and its server end too, with one rank).
    const uint64_t want_after = g_size == 1 ? 2 : 1;
    ok = report(lanes_open == kLanes && lanes_after == want_after,
                "lanes: " + std::to_string(lanes_open) + " lanes live with 12 connections open, " +
                    std::to_string(lanes_after) + " after reconnecting (want " +
                    std::to_string(kLanes) + ", " + std::to_string(want_after) + ")") &&
         ok;
  }
  if (g_rank == server || g_rank == 0) {
    // Every bare-eligible message sent to an end with a lane arrives bare: kLanes
    // receiving ends on each rank (one rank: kLanes in all), kBareShapes per round each.
    const uint64_t want = kLanes * kRounds * kBareShapes;
    const uint64_t got = st.bare_received - bare_before;
    ok = report(got == want, "lanes: " + std::to_string(got) + " messages arrived bare, want " +
                                 std::to_string(want)) &&
         ok;
  }
  return ok;
}

// Rank 1 accepts and reads only after 300 ms; rank 0's write of {8 B, 4 MiB} cannot
// finish before then (the large frame waits for its receive), so its 20 ms timeout
// fires with the sends outstanding.
bool cancelled_write() {
  EventLoop loop;
  auto backend = make(loop);
  const int server = 1;
  std::unique_ptr<Listener> listener;
  long served = 0;
  if (g_rank == server) {
    listener = backend->make_listener(backend->default_listen_address(""));
    loop.run(listener->start([&](std::unique_ptr<Comm> c) -> Task<void> {
      co_await loop.sleep_for(300ms);
      Message m;
      try {
        for (;;) co_await c->read(m);
      } catch (const std::exception&) {
        ++served;  // the writer aborted: the read ends with an error, never hangs
      }
    }));
  }
  std::string addr = bcast(listener ? listener->contact_address() : "", server);
  const auto& st = mpi::Context::current()->stats();
  std::string thrown;
  uint64_t kept_after_throw = 0, graves_after_throw = 0;
  bool settled = false;
  auto client = [&]() -> Task<void> {
    auto comm = co_await backend->make_connector()->connect(addr, 10s);
    std::vector<char> small(8, 's'), large(4u << 20, 'L');
    Message out({Buffer{small.data(), small.size(), MemoryKind::host},
                 Buffer{large.data(), large.size(), MemoryKind::host}});
    try {
      Comm& c = *comm;
      co_await with_timeout(loop, 20ms, [&](CancelToken t) { return c.write(out, t); });
      thrown = "nothing";
    } catch (const TimeoutError&) {
      thrown = "TimeoutError";
    } catch (const std::exception& e) {
      thrown = std::string("other: ") + e.what();
    }
    kept_after_throw = st.kept_buffers;
    graves_after_throw = st.graves;
    // The peer's drain takes the abandoned message; then the graveyard empties and the
    // staging buffer goes with it. `large` outlives this wait, as a write's frames must.
    for (int i = 0; i < 10000 && !settled; ++i) {
      co_await loop.sleep_for(1ms);
      settled = st.graves == 0 && st.kept_buffers == 0;
    }
  };
  auto wait_served = [&]() -> Task<void> {
    while (served < 1) co_await loop.sleep_for(1ms);
  };
  if (std::string e = run_client_server(loop, server, 60s, client, wait_served); !e.empty())
    return report(false, "cancelled-write: " + e);
  if (g_rank != 0) return report(served == 1, "cancelled-write: the reader's read ended");
  return report(
      thrown == "TimeoutError" && graves_after_throw > 0 && kept_after_throw == 1 && settled,
      "cancelled-write: write threw " + thrown + "; then " + std::to_string(graves_after_throw) +
          " buried requests holding " + std::to_string(kept_after_throw) +
          " staging buffer (want >= 1 and 1); " +
          (settled ? "both freed" : "not freed within 10 s"));
}

// Both ranks send, then reach MPI_Finalize 300 ms apart, the later one making MPI progress
// (its engine polls the control channel) while the other is already finalizing.
bool finalize_skew() {
  auto loop = std::make_unique<EventLoop>();
  auto backend = make(*loop);
  std::unique_ptr<Listener> listener;
  long served = 0;
  std::string addr = echo_server(*backend, *loop, 1, listener, served);
  std::string what = "echo";
  try {
    if (g_rank == 0) {
      auto comm = loop->run(backend->make_connector()->connect(addr, 10s));
      char payload[64] = {};
      Message out({Buffer{payload, sizeof payload, MemoryKind::host}}), in;
      loop->run(with_timeout(*loop, 10s, [&](CancelToken t) -> Task<void> {
        co_await comm->write(out, t);
        co_await comm->read(in, t);
      }));
      loop->run(comm->close());
      loop->run(pause(*loop, 300ms));  // rank 1 is in MPI_Finalize by now
    } else {
      loop->run(with_timeout(*loop, 10s, [&](CancelToken t) -> Task<void> {
        while (served < 1) co_await loop->sleep_for(1ms, t);
      }));
    }
  } catch (const std::exception& e) {
    what += std::string(" failed: ") + e.what();
  }
  listener.reset();
  backend.reset();
  loop.reset();
  return report(what == "echo", "finalize-skew: " + what + ", now finalizing");
}

// Returns only on rank 0; rank 1 finalizes and exits inside.
bool peer_exit() {
  auto loop = std::make_unique<EventLoop>();
  auto backend = make(*loop);
  std::unique_ptr<Listener> listener;
  std::unique_ptr<Comm> accepted;
  if (g_rank == 1) {
    listener = backend->make_listener(backend->default_listen_address(""));
    loop->run(listener->start([&](std::unique_ptr<Comm> c) -> Task<void> {
      accepted = std::move(c);
      co_return;
    }));
  }
  std::string addr = bcast(listener ? listener->contact_address() : "", 1);
  if (g_rank == 1) {
    loop->run(with_timeout(*loop, 10s, [&](CancelToken t) -> Task<void> {
      while (!accepted) co_await loop->sleep_for(1ms, t);
    }));
    loop->run(pause(*loop, 100ms));  // rank 0 is now blocked in its read
    accepted.reset();
    listener.reset();
    backend.reset();
    loop.reset();
    std::printf("rank 1: exiting with rank 0 reading\n");
    std::fflush(stdout);
    MPI_Finalize();
    std::exit(0);
  }
  auto comm = loop->run(backend->make_connector()->connect(addr, 10s));
  auto t0 = std::chrono::steady_clock::now();
  std::string why;
  try {
    Message m;
    Comm& c = *comm;
    loop->run(with_timeout(*loop, 20s, [&](CancelToken t) { return c.read(m, t); }));
    why = "read returned a message";
  } catch (const CommClosedError& e) {
    why = std::string("CommClosedError: ") + e.what();
  } catch (const std::exception& e) {
    why = std::string("wrong error: ") + e.what();
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report(why.rfind("CommClosedError", 0) == 0,
                "pending read -> " + why + " after " + std::to_string(s) + " s");
}

// This executable runs MPI at MPI_THREAD_FUNNELED: mpi:thread, whose progress thread calls
// MPI beside the loop, must be refused in one line naming both levels, not started.
bool thread_level_refused() {
  EventLoop loop;
  std::string why;
  try {
    auto backend = make(loop, "thread");
    why = "mpi:thread was created at MPI_THREAD_FUNNELED";
  } catch (const CommError& e) {
    why = e.what();
  }
  bool ok =
      why.find("MPI_THREAD_FUNNELED, this policy needs MPI_THREAD_MULTIPLE") != std::string::npos;
  return report(ok, "mpi:thread at FUNNELED -> " + why);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string mode = argc > 1 ? argv[1] : "";
  bool ok = false;
  bool needs_two = mode == "idle" || mode == "noservice" || mode == "peer-exit" ||
                   mode == "cancelled-write" || mode == "finalize-skew";
  if (needs_two && g_size < 2) {
    report(false, mode + " needs 2 ranks");
  } else if (mode == "cycles") {
    ok = cycles(argc > 2 ? std::atol(argv[2]) : 10000);
  } else if (mode == "idle") {
    ok = idle();
  } else if (mode == "noservice") {
    ok = noservice();
  } else if (mode == "lanes") {
    ok = lanes();
  } else if (mode == "cancelled-write") {
    ok = cancelled_write();
  } else if (mode == "peer-exit") {
    ok = peer_exit();
  } else if (mode == "finalize-skew") {
    ok = finalize_skew();
  } else if (mode == "thread-level") {
    ok = thread_level_refused();
  } else {
    std::fprintf(stderr,
                 "usage: mpi_backend_test cycles [N] | idle | noservice | lanes | "
                 "cancelled-write | peer-exit | finalize-skew | thread-level\n");
  }
  int mine = ok ? 1 : 0, all = 0;
  if (mode == "peer-exit")
    all = mine;  // rank 1 has finalized already
  else if (mode == "finalize-skew")
    all = mine;  // a collective here would line the ranks up again
  else
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (mode == "finalize-skew") {
    // A hang in MPI_Finalize is the failure: name it instead of waiting for ctest's timeout.
    std::signal(SIGALRM, [](int) {
      const char msg[] = "FAIL: finalize-skew: MPI_Finalize did not return within 30 s\n";
      ssize_t n = write(2, msg, sizeof msg - 1);
      (void)n;
      _exit(1);
    });
    alarm(30);
  }
  MPI_Finalize();
  if (mode == "finalize-skew")
    std::printf("rank %d: PASS: finalize-skew: MPI_Finalize returned\n", g_rank);
  return all ? 0 : 1;
}
