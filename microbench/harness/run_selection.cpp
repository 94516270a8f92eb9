#include "harness/run_selection.hpp"

#include <stdexcept>

#include "harness/backend_listing.hpp"
#include "harness/idle_rule.hpp"
#include "harness/option_listing.hpp"

namespace commbench {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

std::chrono::nanoseconds from_us(double us) {
  return std::chrono::nanoseconds(static_cast<long long>(us * 1000));
}

}  // namespace

void add_selection_options(CLI::App& app, RunSelection& s, Family family) {
  bool micro = family == Family::microbench;
  // The microbenchmarks compare a backend with its raw baseline by default; an app's run
  // is one job that a hung peer must not keep forever.
  s.backends = micro ? "tcp,raw-tcp" : "tcp";
  s.run_timeout_s = micro ? 0 : 600;
  app.add_option("--backend", s.backends,
                 micro
                     ? "Comma list of backends to measure interleaved, each "
                       "name[:progress][@idle] (idle: spin, budget or block, what the event "
                       "loop does when idle; default: --idle-spin): " +
                           backend_names(true, false) + " (coroutine comm) and " +
                           backend_names(false, true) + " (the library without the coroutine layer)"
                     : "Backend that carries all traffic (control and data), "
                       "name[:progress][@idle] (idle: spin, budget or block): " +
                           backend_names(true, false))
      ->capture_default_str();
  app.add_option("--progress", s.progress,
                 "Progress policy of the coroutine backends given without one (" +
                     progress_summary() + "; first = the backend's default)");
  app.add_option("--backend-opt", s.backend_opts,
                 "KEY=VALUE passed to coroutine backends (e.g. wire=per-frame, chunk=64K; "
                 "--list-backends lists every key)");
  app.add_option("--interface", s.interface,
                 "Network interface name or IP address to listen on, also steering MPI's and "
                 "UCX's transports to it (default: $COMMBENCH_INTERFACE; else 127.0.0.1 when "
                 "all ranks share a host, else the interface whose subnet reaches every "
                 "other host)");
  const OptionRow<double> numbers[] = {
      {"--connect-timeout", &s.connect_timeout_s,
       micro ? "Seconds to wait for a connection"
             : "Seconds to wait for a connection or for all workers to register"},
      {"--timeout", &s.run_timeout_s, "Abort the whole run after this many seconds (0 = no limit)"},
      {"--idle-spin", &s.idle_spin_us,
       "Event loop: microseconds an idle loop keeps polling before it blocks (or naps)"},
      {"--idle-yield-after", &s.idle_yield_after_us,
       "Event loop: after this many idle microseconds each spin turn also yields the core "
       "(sched_yield), so a peer sharing the core can run; -1 = auto: 2 when this machine "
       "runs more ranks than CPUs (ranks on one kernel: virtual hosts count as one "
       "machine), else never",
       -1},
  };
  add_option_rows(app, numbers, ShowDefault::yes);
}

void resolve_selection(RunSelection& s, Family family) {
  bool micro = family == Family::microbench;
  s.specs.clear();
  for (const auto& item : split(s.backends, ',')) {
    if (item.empty()) throw std::invalid_argument("empty entry in --backend '" + s.backends + "'");
    auto at = item.find('@');
    std::string head = item.substr(0, at);
    auto colon = head.find(':');
    std::string name = head.substr(0, colon);
    // --progress is the default of coroutine backends; a raw baseline names its own variant
    // (default: the first of its table).
    bool raw = is_raw_baseline(name);
    std::string fallback = raw ? "" : s.progress;
    BackendSpec spec{name, colon == std::string::npos ? fallback : head.substr(colon + 1),
                     at == std::string::npos ? "" : item.substr(at + 1)};
    check_policy(backend_policies(spec.name, micro), spec.progress, spec.name);
    if (at != std::string::npos) {
      // A raw baseline's loop is its own (the textbook loop of its library), not ours.
      if (raw)
        throw std::invalid_argument("'" + item + "': " + name +
                                    " runs no event loop, so it takes no @idle rule");
      check_idle_rule(spec.idle, item);
    }
    for (const auto& prev : s.specs)
      if (prev.label() == spec.label())
        throw std::invalid_argument("backend '" + spec.label() + "' listed twice");
    s.specs.push_back(spec);
  }
  if (!micro && s.specs.size() != 1)
    throw std::invalid_argument("--backend takes one backend in an app (got '" + s.backends + "')");
  s.backend_options.extra.clear();
  for (const auto& kv : s.backend_opts) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("--backend-opt expects KEY=VALUE, got '" + kv + "'");
    s.backend_options.extra[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (s.connect_timeout_s <= 0) throw std::invalid_argument("--connect-timeout must be > 0");
}

void apply_idle_options(const RunSelection& s, EventLoop& loop) {
  LoopOptions lo = loop.options();
  lo.spin_budget = from_us(s.idle_spin_us);
  // -1: automatic, evaluated now that the harness has counted the machine's ranks.
  lo.spin_yield_after =
      s.idle_yield_after_us >= 0 ? from_us(s.idle_yield_after_us) : default_spin_yield_after();
  // An app runs one entry: its rule is the run's. The microbenchmarks switch per entry.
  if (s.specs.size() == 1) lo = spec_loop_options(s.specs.front(), lo);
  loop.set_options(lo);
}

LoopOptions spec_loop_options(const BackendSpec& spec, const LoopOptions& base) {
  return idle_rule_options(spec.idle, base);
}

}  // namespace commbench
