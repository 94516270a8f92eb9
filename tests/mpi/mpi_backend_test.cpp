// Multi-rank checks of the mpi:// backend that the in-process comm suite cannot make:
//   cycles N     10,000 connect/echo/close cycles between one pair reuse a handful of tags
//   idle         a listening rank with nothing to do stays under 20% of one core
//   noservice    connecting to a service nobody listens on, or to a rank that does not
//                exist, fails with ConnectError within the timeout
//   peer-exit    a read pending on a peer that closes everything and calls MPI_Finalize
//                fails with CommClosedError instead of hanging
// Run as: mpirun -np 2 mpi_backend_test MODE [N]  (cycles also works with -np 1). Prints
// one PASS/FAIL line per rank and exits non-zero on failure.
#include <mpi.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

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

Task<void> pause(EventLoop& loop, std::chrono::nanoseconds d) { co_await loop.sleep_for(d); }

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

// Rank `server` listens (echo until closed, "stop" ends it); rank 0 runs `client`.
bool cycles(long n) {
  EventLoop loop;
  auto backend = make(loop);
  int server = g_size - 1;
  std::unique_ptr<Listener> listener;
  bool stop = false;
  long served = 0;
  if (g_rank == server) {
    listener = backend->make_listener(backend->default_listen_address(""));
    loop.run(listener->start([&](std::unique_ptr<Comm> c) -> Task<void> {
      Message m;
      try {
        for (;;) {
          co_await c->read(m);
          if (m.frames.size() == 1 && m.frames[0].size == 4 && std::memcmp(m.frames[0].data, "stop", 4) == 0)
            stop = true;
          co_await c->write(m);
        }
      } catch (const CommClosedError&) {
        ++served;
      }
    }));
  }
  std::string addr = bcast(listener ? listener->contact_address() : "", server);
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
  try {
    if (g_rank == 0 && g_rank == server) {
      loop.run(with_timeout(loop, 600s, [&](CancelToken) -> Task<void> {
        co_await client();
        co_await wait_stop();
      }));
    } else if (g_rank == 0) {
      loop.run(with_timeout(loop, 600s, [&](CancelToken) { return client(); }));
    } else if (g_rank == server) {
      loop.run(with_timeout(loop, 600s, [&](CancelToken) { return wait_stop(); }));
    }
    // Let the last close notices arrive and the tags retire.
    loop.run(pause(loop, 50ms));
  } catch (const std::exception& e) {
    return report(false, std::string("cycles: ") + e.what());
  }
  const auto& st = mpi::Context::current()->stats();
  ok = report(wrong == 0, "cycles: " + std::to_string(n) + " round trips, " +
                              std::to_string(wrong) + " wrong") && ok;
  // One client + one server end per cycle; reuse keeps the high-water mark tiny.
  ok = report(st.tags_allocated <= 16, "cycles: tags ever allocated " +
                                            std::to_string(st.tags_allocated) + ", live " +
                                            std::to_string(st.tags_live) + ", retired " +
                                            std::to_string(st.channels_retired)) && ok;
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
    std::snprintf(line, sizeof line, "idle listener used %.3f s CPU in %.3f s (%.1f%% of a core, naps %lu)",
                  cpu, wall, 100 * cpu / wall, static_cast<unsigned long>(loop.stats().naps));
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
                  "connect " + addr + " -> '" + why + "' after " + std::to_string(s) + " s") && ok;
    }
  } else {
    loop.run(pause(loop, 1s));  // rank 1 polls its control channel and refuses
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return ok;
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
  return report(why.rfind("CommClosedError", 0) == 0, "pending read -> " + why + " after " + std::to_string(s) + " s");
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string mode = argc > 1 ? argv[1] : "";
  bool ok = false;
  bool needs_two = mode == "idle" || mode == "noservice" || mode == "peer-exit";
  if (needs_two && g_size < 2) {
    report(false, mode + " needs 2 ranks");
  } else if (mode == "cycles") {
    ok = cycles(argc > 2 ? std::atol(argv[2]) : 10000);
  } else if (mode == "idle") {
    ok = idle();
  } else if (mode == "noservice") {
    ok = noservice();
  } else if (mode == "peer-exit") {
    ok = peer_exit();
  } else {
    std::fprintf(stderr, "usage: mpi_backend_test cycles [N] | idle | noservice | peer-exit\n");
  }
  int mine = ok ? 1 : 0, all = 0;
  if (mode == "peer-exit") all = mine;  // rank 1 has finalized already
  else MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Finalize();
  return all ? 0 : 1;
}
