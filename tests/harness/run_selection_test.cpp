// The policy tables and the one parse of --backend both bench families share: defaults
// come from each backend's table, unknown names are refused with the valid ones listed.
#include "harness/run_selection.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "comm/registry.hpp"
#include "harness/backend_listing.hpp"
#include "mpi/mpi_progress.hpp"
#include "ucx/ucx_progress.hpp"

using namespace commbench;

namespace {

// The message of the std::invalid_argument `f` throws, or of CLI11's refusal of a value
// outside its range ("" when it throws none).
template <typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

RunSelection parsed(Family family, std::vector<std::string> args) {
  RunSelection s;
  CLI::App app;
  add_selection_options(app, s, family);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
  resolve_selection(s, family);
  return s;
}

std::vector<std::string> labels(const RunSelection& s) {
  std::vector<std::string> out;
  for (const auto& spec : s.specs) out.push_back(spec.label());
  return out;
}

}  // namespace

TEST(PolicyTable, DefaultIsTheFirstRow) {
  EXPECT_EQ(mpi::parse_progress(""), mpi::Progress::batched);
  EXPECT_EQ(ucx::parse_progress(""), ucx::Progress::cooperative);
  EXPECT_STREQ(mpi::to_string(mpi::parse_progress("")), mpi::kProgressPolicies[0].name);
  for (const auto& scheme : registry().schemes())
    EXPECT_FALSE(registry().info(scheme).progress_policies.empty()) << scheme;
  EXPECT_EQ(registry().info("tcp").progress_policies.front().name, "epoll");
}

TEST(PolicyTable, EveryListedNameParses) {
  for (const auto& row : mpi::kProgressPolicies)
    EXPECT_STREQ(mpi::to_string(mpi::parse_progress(row.name)), row.name);
  for (const auto& row : ucx::kProgressPolicies)
    EXPECT_STREQ(ucx::to_string(ucx::parse_progress(row.name)), row.name);
}

// tcp:uring is registered only where liburing was found at build time.
#if COMMBENCH_HAVE_URING
const std::string kTcpPolicies = "epoll, uring";
#else
const std::string kTcpPolicies = "epoll";
#endif

TEST(PolicyTable, UnknownIsRefusedWithTheValidOnes) {
  EXPECT_EQ(
      refusal([] { mpi::parse_progress("telepathy"); }),
      "mpi has no progress policy 'telepathy' (known: batched, cooperative, thread, blocking)");
  EXPECT_EQ(refusal([] { ucx::parse_progress("control"); }),
            "ucx has no progress policy 'control' (known: cooperative, polling, event, thread, "
            "thread-blocking)");
  EventLoop loop;
  BackendOptions o;
  o.progress = "batched";
  EXPECT_EQ(refusal([&] { registry().create("tcp", loop, o); }),
            "tcp has no progress policy 'batched' (known: " + kTcpPolicies + ")");
}

TEST(BackendPolicies, RawBaselinesOnlyWhereListed) {
  auto raw = backend_policies("raw-ucx", true);
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(raw[0].name, "polling");
  EXPECT_EQ(raw[1].name, "sleep");
  EXPECT_EQ(refusal([] { backend_policies("raw-ucx", false); }),
            "unknown backend 'raw-ucx' (known: tcp, mpi, ucx)");
  EXPECT_EQ(refusal([] { backend_policies("pigeon", true); }),
            "unknown backend 'pigeon' (known: tcp, mpi, ucx, raw-tcp, raw-ucx, raw-mpi)");
}

// raw-tcp has two variants, NetPIPE's blocking loop first (the default, so existing
// series keep their meaning) and the busy-polling one the report may take ratios against.
TEST(BackendPolicies, RawTcpOffersBlockingAndBusyPoll) {
  auto raw = backend_policies("raw-tcp", true);
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(raw[0].name, "blocking");
  EXPECT_EQ(raw[1].name, "busy-poll");
  EXPECT_EQ(refusal([] { check_policy(backend_policies("raw-tcp", true), "spin", "raw-tcp"); }),
            "raw-tcp has no progress policy 'spin' (known: blocking, busy-poll)");
}

TEST(BackendPolicies, ListingShowsEachTablesDefault) {
  for (const auto& b : backend_table(true))
    EXPECT_EQ(b["default_policy"],
              backend_policies(b["name"].get<std::string>(), true).front().name)
        << b["name"];
}

TEST(RunSelection, EntriesTakeTheirOwnPolicyElseProgress) {
  auto s = parsed(Family::microbench,
                  {"--backend", "mpi,ucx:event,raw-ucx:polling,raw-tcp,raw-tcp:busy-poll",
                   "--progress", "blocking"});
  // --progress applies to the coroutine entries without one; ucx's own wins; a raw
  // baseline is named by the policy it reports, or by none.
  EXPECT_EQ(labels(s), (std::vector<std::string>{"mpi:blocking", "ucx:event", "raw-ucx:polling",
                                                 "raw-tcp", "raw-tcp:busy-poll"}));
}

// Each command line and the one line it is refused with ("" = accepted), checked before
// MPI starts or anything is allocated.
TEST(RunSelection, RefusesBeforeAnythingRuns) {
  struct Case {
    Family family;
    std::vector<std::string> args;
    std::string refusal;
  };
  const Case cases[] = {
      {Family::microbench,
       {"--backend", "raw-ucx:event"},
       "raw-ucx has no progress policy 'event' (known: polling, sleep)"},
      {Family::appbench,
       {"--backend", "ucx:telepathy"},
       "ucx has no progress policy 'telepathy' (known: cooperative, polling, event, thread, "
       "thread-blocking)"},
      {Family::microbench,
       {"--backend", "tcp", "--progress", "batched"},
       "tcp has no progress policy 'batched' (known: " + kTcpPolicies + ")"},
      {Family::microbench, {"--backend", "tcp,tcp:epoll"}, ""},
      {Family::microbench, {"--backend", "tcp,tcp"}, "backend 'tcp' listed twice"},
      {Family::microbench, {"--backend", "tcp,,mpi"}, "empty entry in --backend 'tcp,,mpi'"},
      {Family::appbench,
       {"--backend", "tcp,mpi"},
       "--backend takes one backend in an app (got 'tcp,mpi')"},
      {Family::appbench,
       {"--backend", "raw-tcp"},
       "unknown backend 'raw-tcp' (known: tcp, mpi, ucx)"},
      {Family::appbench, {"--backend-opt", "=x"}, "--backend-opt expects KEY=VALUE, got '=x'"},
      {Family::appbench, {"--connect-timeout", "0"}, "--connect-timeout must be > 0"},
      {Family::microbench, {"--timeout", "-1"}, "--timeout: must be >= 0, got -1"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(refusal([&] { parsed(c.family, c.args); }), c.refusal) << c.args.back();
}

TEST(RunSelection, AnAppRunsOneCoroutineBackend) {
  EXPECT_EQ(labels(parsed(Family::appbench, {})), std::vector<std::string>{"tcp"});
  EXPECT_EQ(labels(parsed(Family::appbench, {"--backend", "mpi", "--progress", "cooperative"})),
            std::vector<std::string>{"mpi:cooperative"});
}

TEST(RunSelection, FamilyDefaults) {
  auto micro = parsed(Family::microbench, {});
  EXPECT_EQ(labels(micro), (std::vector<std::string>{"tcp", "raw-tcp"}));
  EXPECT_EQ(micro.run_timeout_s, 0);
  EXPECT_EQ(parsed(Family::appbench, {}).run_timeout_s, 600);
}

TEST(RunSelection, BackendOptsBecomeExtra) {
  auto s =
      parsed(Family::appbench, {"--backend-opt", "wire=per-frame", "--backend-opt", "chunk=64K"});
  EXPECT_EQ(s.backend_options.extra.at("wire"), "per-frame");
  EXPECT_EQ(s.backend_options.extra.at("chunk"), "64K");
}

TEST(RunSelection, IdleOptionsReachTheLoop) {
  for (Family family : {Family::microbench, Family::appbench}) {
    EventLoop loop;
    apply_idle_options(parsed(family, {"--idle-spin", "0", "--idle-yield-after", "7"}), loop);
    EXPECT_EQ(loop.options().spin_budget.count(), 0);
    EXPECT_EQ(loop.options().spin_yield_after.count(), 7000);
    apply_idle_options(parsed(family, {"--idle-spin", "2.5"}), loop);
    EXPECT_EQ(loop.options().spin_budget.count(), 2500);
    // -1: the automatic rule, evaluated when the options are applied (after MPI_Init, when
    // the harness has counted the machine's ranks)
    EXPECT_EQ(loop.options().spin_yield_after, default_spin_yield_after());
    EXPECT_EQ(refusal([&] {
                parsed(family, {"--idle-spin", "-1"});
              }),
              "--idle-spin: must be >= 0, got -1");
  }
}

TEST(RunSelection, TheMachinesRanksDecideTheAutomaticYield) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const char* before = std::getenv("COMMBENCH_MACHINE_RANKS");
  std::string saved = before ? before : "";
  // More ranks on this kernel than CPUs (virtual hosts the launcher counts apart): yield.
  setenv("COMMBENCH_MACHINE_RANKS", std::to_string(cpus + 1).c_str(), 1);
  EventLoop loop;
  apply_idle_options(parsed(Family::appbench, {}), loop);
  EXPECT_EQ(loop.options().spin_yield_after, std::chrono::microseconds(2));
  if (before)
    setenv("COMMBENCH_MACHINE_RANKS", saved.c_str(), 1);
  else
    unsetenv("COMMBENCH_MACHINE_RANKS");
}

// An entry's @idle rule: its own series (label), its own loop options over the run's, and
// a one-line refusal for an unknown rule or a raw baseline (whose loop is not ours).
TEST(RunSelection, IdleRulePerEntry) {
  auto s = parsed(
      Family::microbench,
      {"--backend", "ucx:polling@spin,ucx:polling@block,ucx:polling,raw-ucx", "--idle-spin", "20"});
  EXPECT_EQ(labels(s), (std::vector<std::string>{"ucx:polling@spin", "ucx:polling@block",
                                                 "ucx:polling", "raw-ucx"}));
  EXPECT_EQ(s.specs[0].idle, "spin");
  EXPECT_EQ(s.specs[2].idle, "");
  EventLoop loop;
  apply_idle_options(s, loop);  // several entries: the run's own rule
  LoopOptions base = loop.options();
  EXPECT_EQ(base.spin_budget.count(), 20'000);
  EXPECT_EQ(spec_loop_options(s.specs[0], base).spin_budget, std::chrono::nanoseconds::max());
  EXPECT_EQ(spec_loop_options(s.specs[1], base).spin_budget.count(), 0);
  EXPECT_EQ(spec_loop_options(s.specs[2], base).spin_budget.count(), 20'000);
  auto budget = parsed(Family::microbench, {"--backend", "mpi:cooperative@budget"});
  EXPECT_EQ(spec_loop_options(budget.specs[0], base).spin_budget.count(), 20'000);
  // An app runs one entry: its rule is the run's.
  EventLoop app_loop;
  apply_idle_options(parsed(Family::appbench, {"--backend", "ucx:polling@block"}), app_loop);
  EXPECT_EQ(app_loop.options().spin_budget.count(), 0);

  EXPECT_EQ(refusal([] {
              parsed(Family::microbench, {"--backend", "ucx:polling@nap"});
            }),
            "unknown idle rule 'nap' in --backend entry 'ucx:polling@nap' (valid: spin, "
            "budget, block)");
  EXPECT_EQ(refusal([] {
              parsed(Family::microbench, {"--backend", "raw-ucx@spin"});
            }),
            "'raw-ucx@spin': raw-ucx runs no event loop, so it takes no @idle rule");
  EXPECT_EQ(refusal([] {
              parsed(Family::microbench, {"--backend", "ucx@spin,ucx@spin"});
            }),
            "backend 'ucx@spin' listed twice");
}
