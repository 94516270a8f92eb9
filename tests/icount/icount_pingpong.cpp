// The instruction-count check's driver (tests/icount/README.md): a fixed ping-pong over the
// comm interface, listener (an echo) and connector on one loop in one thread, for each
// backend:policy named on the command line. Under callgrind it marks what to count with
// client requests: for each policy and each round-trip count N it zeroes the counters,
// runs N round trips and dumps them as "commbench-icount <scheme:policy> <N>". The script
// (check.py) takes the difference of two counts, so connecting, the first messages and
// the loop's entry and exit cancel out. Outside valgrind the requests do nothing.
//
//   icount_pingpong [--size BYTES] [--warmup N] [--counts N1,N2] SCHEME:POLICY...
//
// The loop never spins on a clock here (spin_budget 0: a turn that did nothing blocks at
// once), so the count does not depend on how fast the machine is.
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm/errors.hpp"
#include "comm/registry.hpp"
#include "runtime/event_loop.hpp"

using namespace commbench;
using namespace std::chrono_literals;

namespace {

struct Args {
  size_t size = 64;
  int warmup = 50;
  std::vector<int> counts = {100, 300};
  std::vector<std::string> policies;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "icount_pingpong: error: %s\n"
               "usage: icount_pingpong [--size BYTES] [--warmup N] [--counts N1,N2,...] "
               "SCHEME:POLICY...\n",
               why.c_str());
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(s + " needs a value");
      return argv[++i];
    };
    if (s == "--size") {
      a.size = std::stoul(value());
    } else if (s == "--warmup") {
      a.warmup = std::stoi(value());
    } else if (s == "--counts") {
      a.counts.clear();
      std::stringstream in(value());
      for (std::string n; std::getline(in, n, ',');) a.counts.push_back(std::stoi(n));
    } else if (s.rfind("--", 0) == 0) {
      usage("unknown option " + s);
    } else {
      if (s.find(':') == std::string::npos) usage("'" + s + "' is not SCHEME:POLICY");
      a.policies.push_back(s);
    }
  }
  if (a.policies.empty()) usage("name at least one SCHEME:POLICY");
  return a;
}

// Echoes every message back until the peer closes.
CommHandler echo() {
  return [](std::unique_ptr<Comm> comm) -> Task<void> {
    Message in;
    try {
      for (;;) {
        co_await comm->read(in);
        co_await comm->write(in);
      }
    } catch (const CommClosedError&) {
    }
  };
}

Task<void> round_trips(Comm& comm, const Message& out, Message& in, int n) {
  for (int i = 0; i < n; ++i) {
    co_await comm.write(out);
    co_await comm.read(in);
  }
}

// One policy: connect, warm up, then one counted block per entry of `counts`.
void run_policy(const Args& a, const std::string& name) {
  const std::string scheme = name.substr(0, name.find(':'));
  BackendOptions o;
  o.progress = name.substr(name.find(':') + 1);
  o.auth.token = random_job_token();
  o.auth.self_id = "icount";
  LoopOptions lo;
  lo.spin_budget = 0ns;  // no clock-bounded spinning: counts must not depend on speed
  EventLoop loop(lo);
  std::unique_ptr<Backend> backend = registry().create(scheme, loop, o);
  std::unique_ptr<Listener> listener =
      backend->make_listener(backend->default_listen_address("127.0.0.1"));

  std::vector<std::byte> payload(a.size, std::byte{0x5a});
  Message out({Buffer{payload.data(), payload.size(), MemoryKind::host}});
  loop.run([&]() -> Task<void> {
    co_await listener->start(echo());
    std::unique_ptr<Comm> comm =
        co_await backend->make_connector()->connect(listener->contact_address(), 30s);
    Message in;
    co_await round_trips(*comm, out, in, a.warmup);
    for (int n : a.counts) {
      const std::string label = "commbench-icount " + name + " " + std::to_string(n);
      CALLGRIND_ZERO_STATS;
      co_await round_trips(*comm, out, in, n);
      CALLGRIND_DUMP_STATS_AT(label.c_str());
    }
    if (in.total_bytes() != a.size) throw std::runtime_error("echo came back with the wrong size");
    co_await comm->close();
  }());
  listener->stop();
  if (!loop.settle_detached(5s)) throw std::runtime_error("the echo handler did not finish");
  std::printf("%s: %d warm-up and", name.c_str(), a.warmup);
  for (int n : a.counts) std::printf(" %d", n);
  std::printf(" round trips of %zu B\n", a.size);
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  try {
    for (const auto& p : a.policies) run_policy(a, p);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "icount_pingpong: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
