// scale_probe: what connection setup costs each rank, against the number of ranks
// (issue 17). Every rank, in order, with a barrier between phases so that the phases of
// different ranks are comparable:
//   1. bootstrap   MPI up, the listen interface and the job token agreed (RunLayer)
//   2. listen      the backend created (collective for mpi) and its listener started
//   3. exchange    the listener addresses allgathered over MPI, as the apps do
//   4. all-to-all  one connection to every other rank, all at once on the event loop
//                  (rank i connects to every j > i and accepts from every j < i), each
//                  carrying one validated message each way
//   5. teardown    every connection closed, the listener stopped
// Each phase is timed on this rank's steady clock. Before the backend exists and after
// step 4 the rank reads its RSS and open descriptors, and the backend's own counts
// (Backend::resources(): ucx endpoints, mpi communicators and tags). Rank 0 gathers one
// CSV row per rank (kScaleColumns) and prints max and median per phase.
//
// Run as: mpirun -np N scale_probe --backend tcp|ucx|mpi --csv FILE (--help for the rest)
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "comm/errors.hpp"
#include "comm/fd_limit.hpp"
#include "comm/peer_auth.hpp"
#include "comm/registry.hpp"
#include "harness/backend_listing.hpp"
#include "harness/csv_writer.hpp"
#include "harness/descriptor_budget.hpp"
#include "harness/metadata.hpp"
#include "harness/option_listing.hpp"
#include "harness/pattern.hpp"
#include "harness/run_guard.hpp"
#include "harness/run_layer.hpp"
#include "harness/sizes.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;

namespace {

constexpr const char* kProgram = "scale_probe";

// One row per rank; units in the names (results/README.md's conventions). The first
// columns are the ones every suite CSV carries.
constexpr std::string_view kScaleColumns[] = {
    "benchmark", "origin", "backend", "progress", "mpi", "ranks", "run_id", "pattern",
    "pair_comms",  // mpi: the start-up construction (world | create | create_group)
    "rank", "host", "message_bytes",
    // phase times on this rank (seconds): wall, and the CPU time of the whole process (all
    // its threads) meanwhile -- oversubscribed, the wall time of a phase grows with the
    // ranks sharing each core; the CPU time is what the rank itself spent
    "bootstrap_s", "setup_listen_s", "address_exchange_s", "first_all_to_all_s", "teardown_s",
    "bootstrap_cpu_s", "setup_listen_cpu_s", "address_exchange_cpu_s", "first_all_to_all_cpu_s",
    "teardown_cpu_s",
    // what the rank holds before its backend exists and after the all-to-all
    // (and once the listener is up: per connection = (after - listening) / (ranks - 1), so
    // the backend's fixed cost -- UCX's context and workers -- is not spread over them)
    "rss_before_kib", "rss_listening_kib", "rss_after_kib", "rss_per_connection_kib", "fds_before",
    "fds_listening", "fds_after", "fds_per_connection", "fd_soft_limit", "fd_hard_limit",
    "fd_soft_limit_at_start", "connections", "connections_initiated", "connections_accepted",
    "ucx_endpoints", "mpi_comms", "mpi_tags_live", "mpi_tags_allocated", "mpi_tag_limit",
    // integrity
    "wrong", "validated"};

struct ProbeOptions : RunSelection {
  std::string csv;
  std::string pattern = "all-to-all";
  std::string message_size = "64";
  size_t message_bytes = 64;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the whole process, every thread (UCX's async thread, MPI's), in seconds.
double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// VmRSS of /proc/self/status in KiB (-1 if unreadable).
long long rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  return -1;
}

// Distinct patterns per direction of each pair: a message delivered on the wrong
// connection, or the reply mistaken for the request, fails the check.
uint64_t seed_of(int from, int to, int n) {
  return static_cast<uint64_t>(from) * static_cast<uint64_t>(n) + static_cast<uint64_t>(to) + 1;
}

struct Snapshot {
  long long rss_kib = -1;
  long long fds = -1;
};
Snapshot snapshot() {
  return {rss_kib(), static_cast<long long>(open_descriptors())};
}

// Step 4 on one rank: its n-1 connections, all in flight at once on the loop.
class AllToAll {
 public:
  AllToAll(EventLoop& loop, Backend& backend, int rank, int n, size_t bytes, PeerAuth& auth)
      : loop_(loop), backend_(backend), rank_(rank), n_(n), bytes_(bytes), auth_(auth) {
    comms_.resize(static_cast<size_t>(n));
  }

  // The listener's handler: the accepting end of a lower rank's connection. The request
  // is read and checked, the reply written; the last one wakes run().
  Task<void> accept(std::unique_ptr<Comm> c) {
    int from = rank_of_identity(c->peer_id());  // vouched for by the job token
    if (from < 0 || from >= rank_ || comms_[static_cast<size_t>(from)]) {
      // not a lower rank of this job, or a second connection
      auth_.count_rejected(Refusal::wrong_identity);
      c->abort();
      strays_.push_back(std::move(c));
      co_return;
    }
    Comm& comm = *c;
    comms_[static_cast<size_t>(from)] = std::move(c);
    try {
      co_await exchange(comm, from, false, stop_.token());
      if (++accepted_ == rank_) all_accepted_.cancel();
    } catch (const std::exception& e) {
      fail("from rank " + std::to_string(from) + ": " + e.what());
    }
  }

  // Returns "" or the first error. `timeout` bounds the whole step.
  std::string run(const std::vector<std::string>& addresses, std::chrono::nanoseconds timeout) {
    auto connector = backend_.make_connector();
    auto body = [&](CancelToken t) -> Task<void> {
      std::vector<Task<void>> tasks;
      for (int j = rank_ + 1; j < n_; ++j)
        tasks.push_back(initiate(*connector, addresses, j, timeout, t));
      tasks.push_back(wait_accepted(timeout));
      co_await when_all(std::move(tasks));
    };
    try {
      loop_.run(with_timeout(loop_, timeout, body));
    } catch (const TimeoutError&) {
      fail("not complete within --connect-timeout: " + missing());
    } catch (const std::exception& e) {
      fail(e.what());
    }
    return error_;
  }

  // Closes every connection at once.
  void close() {
    std::vector<Task<void>> tasks;
    for (auto& c : comms_)
      if (c) tasks.push_back(close_one(*c));
    loop_.run(when_all(std::move(tasks)));
  }

  size_t held() const {
    return static_cast<size_t>(
        std::count_if(comms_.begin(), comms_.end(), [](const auto& c) { return c != nullptr; }));
  }
  int initiated() const { return initiated_; }
  int accepted() const { return accepted_; }
  size_t wrong() const { return wrong_; }
  // Connections whose received message was checked byte for byte.
  size_t checked() const { return checked_; }

 private:
  Task<void> initiate(Connector& connector, const std::vector<std::string>& addresses, int to,
                      std::chrono::nanoseconds timeout, CancelToken t) {
    auto comm = co_await connector.connect(addresses[static_cast<size_t>(to)], timeout);
    if (comm->peer_id() != rank_identity(to))
      throw CommError("rank " + std::to_string(to) + "'s listener answered as '" + comm->peer_id() +
                      "'");
    Comm& c = *comm;
    comms_[static_cast<size_t>(to)] = std::move(comm);
    co_await exchange(c, to, true, t);
    ++initiated_;
  }

  // The connector speaks first; each end checks every byte it receives.
  Task<void> exchange(Comm& c, int peer, bool initiator, CancelToken t) {
    std::vector<std::byte> out(bytes_);
    fill_pattern(out.data(), bytes_, seed_of(rank_, peer, n_));
    Message msg({Buffer{out.data(), bytes_, MemoryKind::host}});
    Message in;
    if (initiator) co_await c.write(msg, t);
    co_await c.read(in, t);
    if (in.frames.size() != 1 || in.frames[0].size != bytes_)
      wrong_ += bytes_;
    else
      wrong_ += check_pattern(in.frames[0].data, bytes_, seed_of(peer, rank_, n_));
    ++checked_;
    if (!initiator) co_await c.write(msg, t);
  }

  // Woken by all_accepted_ (the last accept, or a failed one); a sleep that runs out
  // is the step's deadline.
  Task<void> wait_accepted(std::chrono::nanoseconds timeout) {
    if (accepted_ == rank_) co_return;
    bool woken = false;
    try {
      co_await loop_.sleep_for(timeout, all_accepted_.token());
    } catch (const OperationCancelled&) {
      woken = true;
    }
    if (!error_.empty()) throw CommError(error_);
    if (!woken) throw TimeoutError("accepting");
  }

  Task<void> close_one(Comm& c) {
    try {
      co_await c.close();
    } catch (const std::exception&) {
      // the peer closed first: nothing left to say
    }
  }

  void fail(const std::string& what) {
    if (error_.empty()) error_ = what;
    all_accepted_.cancel();
    stop_.cancel();
  }

  std::string missing() const {
    std::string out;
    int shown = 0;
    for (int j = 0; j < n_; ++j)
      if (j != rank_ && !comms_[static_cast<size_t>(j)] && shown++ < 8)
        out += (out.empty() ? "no connection with rank " : ", ") + std::to_string(j);
    return out.empty() ? "a first message never came back" : out;
  }

  EventLoop& loop_;
  Backend& backend_;
  int rank_, n_;
  size_t bytes_;
  PeerAuth& auth_;
  std::vector<std::unique_ptr<Comm>> comms_;  // by peer rank
  std::vector<std::unique_ptr<Comm>> strays_;
  int initiated_ = 0, accepted_ = 0;
  size_t wrong_ = 0;
  size_t checked_ = 0;
  std::string error_;
  CancelSource all_accepted_, stop_;
};

// One line from rank 0 for the whole job, then every rank aborts: MPI_Finalize with
// connections half made is not safe on every backend (MPI requests still posted).
[[noreturn]] void fail_job(Bootstrap& boot, const std::string& line) {
  if (boot.rank() == 0) {
    std::fprintf(stderr, "%s: error: %s\n", kProgram, line.c_str());
    std::fflush(stderr);
  }
  boot.barrier();
  // As Bootstrap::fail_here: the launcher forwards the line before the abort ends the job.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Bootstrap::abort_job(1);
  std::exit(1);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  auto t_start = std::chrono::steady_clock::now();
  RunLayer layer(argc, argv, kProgram);
  ProbeOptions opts;
  CLI::App app{
      "scale_probe: connection setup cost per rank (issue 17). Each rank, with a barrier "
      "between phases: bootstrap (MPI, interface, job token), listen (backend + listener), "
      "address exchange (allgather), the first all-to-all (a connection to every other rank, "
      "all at once, one validated message each way), teardown. Records per rank the phase "
      "times, RSS and open descriptors before the backend and after the all-to-all, the "
      "descriptor limits, connections held, ucx endpoints and mpi communicators and tags; "
      "rank 0 writes one CSV row per rank (--csv, + .json sidecar) and prints max and median "
      "per phase. The soft RLIMIT_NOFILE is raised to the hard limit at start-up; a run whose "
      "connections cannot fit under it is refused with one line. Run as: mpirun -np N "
      "scale_probe --backend tcp|ucx|mpi",
      kProgram};
  add_selection_options(app, opts, Family::appbench);
  opts.run_timeout_s = 0;  // armed after start-up unless given: see below
  app.get_option("--connect-timeout")
      ->description(
          "Seconds the first all-to-all may take on a rank (each connect, and the "
          "accepts from lower ranks)");
  app.get_option("--timeout")
      ->description("Abort the whole run after this many seconds (0 = no limit)")
      ->default_str("60 + 1 per rank");
  app.add_option("--csv", opts.csv, "Write one row per rank here (+ .json sidecar)");
  app.add_option("--pattern", opts.pattern, "Connection pattern (all-to-all: every pair once)")
      ->check(CLI::IsMember({"all-to-all"}))
      ->capture_default_str();
  app.add_option("--message-size", opts.message_size,
                 "Bytes of the validated message each connection carries each way")
      ->capture_default_str();
  layer.parse(app, {kProgram, false, {}, {}}, [&] {
    resolve_selection(opts, Family::appbench);
    for (const auto& spec : opts.specs)
      refuse_stalling_policy(backend_policies(spec.name, false), spec.progress, spec.name,
                             "the all-to-all (every rank connects and accepts at once)");
    opts.message_bytes = parse_size(opts.message_size);
    if (opts.message_bytes == 0) throw std::invalid_argument("--message-size must be >= 1");
  });
  const bool auto_timeout = app.get_option("--timeout")->count() == 0;
  Bootstrap& boot = layer.start(argc, argv, opts);
  const int n = boot.size(), rank = boot.rank();
  // --timeout's default: 60 s plus 1 s a rank (64 ranks oversubscribed on 2 cores start
  // MPI in ~10-20 s), so a stuck run always ends with one line.
  if (auto_timeout) {
    opts.run_timeout_s = 60 + n;
    arm_run_timeout(kProgram, opts.run_timeout_s);
  }
  if (n < 2)
    boot.fail_all("needs 2 ranks or more (got 1); run it as: mpirun -np N scale_probe ...");
  EventLoop loop;
  layer.agree(loop, opts);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  double bootstrap_s = seconds_since(t_start);
  double bootstrap_cpu_s = process_cpu_s();  // since the process started
  // Only rank 0 writes the CSV, but every rank must learn that it cannot.
  std::unique_ptr<CsvWriter> csv;
  std::string csv_error;
  if (rank == 0 && !opts.csv.empty()) {
    try {
      csv = std::make_unique<CsvWriter>(opts.csv, CsvSchema(kScaleColumns));
    } catch (const std::exception& e) {
      csv_error = e.what();
    }
  }
  if (!boot.all(csv_error.empty())) boot.fail_all(csv_error);

  // The descriptors the all-to-all needs, checked before anything is opened: one line
  // from whichever rank cannot fit, and every rank ends.
  const BackendSpec& spec = opts.specs.front();
  std::string shortfall = descriptor_shortfall(
      spec.name, static_cast<size_t>(n - 1),
      "the all-to-all of " + std::to_string(n) + " ranks (rank " + std::to_string(rank) + ")");
  for (const std::string& s : boot.allgather(shortfall))
    if (!s.empty()) boot.fail_all(s, 1);

  // Rank 0 notes each phase as the job leaves it (stdout, '#'), so a run that --timeout
  // ends shows where it stood.
  auto t_phase = std::chrono::steady_clock::now();
  auto barrier = [&](const char* done) {
    boot.barrier();
    if (rank != 0) return;
    std::printf("# %s (%.3f s)\n", done, seconds_since(t_phase));
    std::fflush(stdout);
    t_phase = std::chrono::steady_clock::now();
  };
  barrier("bootstrap done");
  Snapshot before = snapshot();

  // 2. backend + listener
  auto t0 = std::chrono::steady_clock::now();
  double c0 = process_cpu_s();
  BackendOptions bo = opts.backend_options;
  bo.progress = spec.progress;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Listener> listener;
  std::unique_ptr<AllToAll> a2a;
  try {
    backend = registry().create(spec.name, loop, bo);
    a2a = std::make_unique<AllToAll>(loop, *backend, rank, n, opts.message_bytes,
                                     opts.backend_options.auth);
    listener = backend->make_listener(backend->default_listen_address(layer.iface().address));
    loop.run(
        listener->start([&a2a](std::unique_ptr<Comm> c) { return a2a->accept(std::move(c)); }));
  } catch (const std::exception& e) {
    boot.fail_here(std::string("cannot listen: ") + e.what());
  }
  double listen_s = seconds_since(t0), listen_cpu_s = process_cpu_s() - c0;
  Snapshot listening = snapshot();
  barrier("listening");

  // 3. address exchange
  t0 = std::chrono::steady_clock::now();
  c0 = process_cpu_s();
  std::vector<std::string> addresses = boot.allgather(listener->contact_address());
  double exchange_s = seconds_since(t0), exchange_cpu_s = process_cpu_s() - c0;
  barrier("addresses exchanged");

  // 4. the first all-to-all
  t0 = std::chrono::steady_clock::now();
  c0 = process_cpu_s();
  auto timeout = std::chrono::nanoseconds(static_cast<long long>(opts.connect_timeout_s * 1e9));
  std::string error = a2a->run(addresses, timeout);
  double a2a_s = seconds_since(t0), a2a_cpu_s = process_cpu_s() - c0;
  // Every rank's step ends (bounded by --connect-timeout), so the job agrees on one line,
  // the lowest failing rank's, instead of one per rank (a limit usually hits them all).
  std::vector<std::string> errors = boot.allgather(error);
  for (int r = 0; r < n; ++r)
    if (!errors[static_cast<size_t>(r)].empty())
      fail_job(boot, "rank " + std::to_string(r) + ": " + spec.name +
                         " all-to-all: " + errors[static_cast<size_t>(r)]);
  Snapshot after = snapshot();
  BackendResources res = backend->resources();
  size_t held = a2a->held();
  barrier("all-to-all done");

  // 5. teardown
  t0 = std::chrono::steady_clock::now();
  c0 = process_cpu_s();
  a2a->close();
  listener->stop();
  if (!loop.settle_detached(std::chrono::seconds(5)))
    std::fprintf(stderr, "%s: rank %d: %zu tasks still waiting 5 s after the close\n", kProgram,
                 rank, loop.live_detached());
  double teardown_s = seconds_since(t0), teardown_cpu_s = process_cpu_s() - c0;
  barrier("teardown done");

  // One row per rank, gathered as JSON objects (column -> text).
  DescriptorLimit lim = descriptor_limit(), at_start = raise_descriptor_limit();
  auto pair_comms = opts.backend_options.extra.find("pair_comms");
  Json mine;
  auto set = [&](const char* k, const std::string& v) { mine[k] = v; };
  auto num = [&](const char* k, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    mine[k] = buf;
  };
  auto count = [&](const char* k, long long v) {
    mine[k] = v < 0 ? std::string() : std::to_string(v);
  };
  set("benchmark", kProgram);
  set("origin", "suite");
  set("backend", spec.name);
  set("progress", backend->progress());
  set("mpi", Bootstrap::mpi_flavor());
  count("ranks", n);
  set("run_id", layer.run_id());
  set("pattern", opts.pattern);
  set("pair_comms", !registry().info(spec.name).reads_setting("pair_comms") ? std::string()
                    : pair_comms == opts.backend_options.extra.end()        ? std::string("world")
                                                                            : pair_comms->second);
  count("rank", rank);
  set("host", host);
  count("message_bytes", static_cast<long long>(opts.message_bytes));
  num("bootstrap_s", bootstrap_s);
  num("setup_listen_s", listen_s);
  num("address_exchange_s", exchange_s);
  num("first_all_to_all_s", a2a_s);
  num("teardown_s", teardown_s);
  num("bootstrap_cpu_s", bootstrap_cpu_s);
  num("setup_listen_cpu_s", listen_cpu_s);
  num("address_exchange_cpu_s", exchange_cpu_s);
  num("first_all_to_all_cpu_s", a2a_cpu_s);
  num("teardown_cpu_s", teardown_cpu_s);
  count("rss_before_kib", before.rss_kib);
  count("rss_after_kib", after.rss_kib);
  count("rss_listening_kib", listening.rss_kib);
  num("rss_per_connection_kib", static_cast<double>(after.rss_kib - listening.rss_kib) / (n - 1));
  count("fds_before", before.fds);
  count("fds_listening", listening.fds);
  count("fds_after", after.fds);
  num("fds_per_connection", static_cast<double>(after.fds - listening.fds) / (n - 1));
  count("fd_soft_limit", lim.soft);
  count("fd_hard_limit", lim.hard);
  count("fd_soft_limit_at_start", at_start.soft);
  count("connections", static_cast<long long>(held));
  count("connections_initiated", a2a->initiated());
  count("connections_accepted", a2a->accepted());
  count("ucx_endpoints", res.ucx_endpoints);
  count("mpi_comms", res.mpi_comms);
  count("mpi_tags_live", res.mpi_tags_live);
  count("mpi_tags_allocated", res.mpi_tags_allocated);
  count("mpi_tag_limit", res.mpi_tag_limit);
  count("wrong", static_cast<long long>(a2a->wrong()));
  // Validated only when every connection this rank holds had its message checked.
  count("validated", a2a->checked() == held && held > 0 ? 1 : 0);
  std::vector<std::string> rows = boot.allgather(mine.dump());
  size_t wrong = static_cast<size_t>(boot.sum(static_cast<long long>(a2a->wrong())));

  Json settings;
  settings["backend"] = spec.name;
  settings["progress"] = backend->progress();
  settings["pattern"] = opts.pattern;
  settings["message_bytes"] = opts.message_bytes;
  settings["timeout_s"] = opts.run_timeout_s;
  settings["connect_timeout_s"] = opts.connect_timeout_s;
  Json meta = layer.metadata(settings, opts, loop, [] { return Json::object(); });
  layer.add_rejected_peers(meta, opts);
  if (rank == 0) {
    std::vector<Json> parsed;
    for (const auto& r : rows) parsed.push_back(Json::parse(r));
    if (csv) {
      for (const auto& r : parsed) {
        ResultRow row{CsvSchema(kScaleColumns)};
        for (const auto& [k, v] : r.items()) row.set(k, v.get<std::string>());
        csv->write(row);
      }
      csv->commit(sidecar_text(meta));
    }
    auto column = [&](const char* k) {
      std::vector<double> v;
      for (const auto& r : parsed) {
        const std::string s = r[k].get<std::string>();
        if (!s.empty()) v.push_back(std::atof(s.c_str()));
      }
      return v;
    };
    std::printf("# %s  run %s  mpi %s  backend %s:%s  ranks %d  pattern %s\n", kProgram,
                layer.run_id().c_str(), Bootstrap::mpi_flavor().c_str(), spec.name.c_str(),
                backend->progress().c_str(), n, opts.pattern.c_str());
    std::printf("%-24s %12s %12s\n", "#phase / per rank", "median", "max");
    for (const char* k :
         {"bootstrap_s", "setup_listen_s", "address_exchange_s", "first_all_to_all_s", "teardown_s",
          "setup_listen_cpu_s", "first_all_to_all_cpu_s", "rss_before_kib", "rss_listening_kib",
          "rss_after_kib", "rss_per_connection_kib", "fds_before", "fds_listening", "fds_after",
          "fds_per_connection", "connections", "ucx_endpoints", "mpi_comms", "mpi_tags_live"}) {
      auto v = column(k);
      if (v.empty()) continue;
      std::printf("%-24s %12.6g %12.6g\n", k, median(v), *std::max_element(v.begin(), v.end()));
    }
    std::printf("# validation: %s (%zu wrong bytes)\n", wrong == 0 ? "PASSED" : "FAILED", wrong);
    std::fflush(stdout);
  }
  // Connections and listener before the backend that made them, all before the loop.
  a2a.reset();
  listener.reset();
  backend.reset();
  return wrong == 0 ? 0 : 1;
}
