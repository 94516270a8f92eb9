// linkemu: a user-space switch with a netem-like link model between TAP devices in network
// namespaces (this machine's kernel has no netem). Options, set-up and lifecycle here; the
// loop is in forwarder.cpp, the model in link_model.cpp.
#include <sys/signalfd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "forwarder.hpp"
#include "link_model.hpp"
#include "tap_port.hpp"

namespace {

constexpr const char* kHelpFooter =
    R"(Link model, applied to each frame on its way out of a port (each output port is one
link; a flooded frame is scheduled on every port independently):
  1. loss:    with probability --loss-pct the frame is dropped.
  2. reorder: with probability --reorder-pct the frame leaves at once, skipping the delay
              and overtaking every frame still held for that port (netem's semantics: with
              no delay there is nothing to overtake). Its bytes still count against --rate.
  3. delay:   otherwise it is ready after --delay-us plus a uniform jitter in
              [-J, +J] µs (never below zero). Without --jitter-reorders a frame is never
              ready before the previous in-order frame of its port, so jitter alone keeps
              each link FIFO (TCP reads reordering as loss); with it, jitter reorders, as
              netem's does.
  4. rate:    departure = max(ready, port busy until) + frame bytes * 8 / --rate, the
              frame's bytes being the Ethernet frame as the tap hands it over (header and
              payload, no preamble or FCS).
Frames due at the same time leave in arrival order. With no delay, jitter or rate a frame
is written out as soon as it is read, without the queue or the timer.

Accuracy: a held frame leaves when a timer wakes linkemu, and on a virtual machine that
wake-up can come tens of µs late (the stats' departure_lateness_us shows it); --spin-us
trades a busy core, while a frame is due within that window, for sub-µs departures.

With --gso the taps take checksum and TCP segmentation offload, as a VM's virtio NIC does:
the namespaces' stacks hand over superframes of up to 64 KiB and linkemu forwards them
whole, which costs one read and one write per superframe instead of per 1500 B frame.
Rate and byte counts use the bytes the segments would take on a wire, but a loss or a
reorder hits a whole superframe (up to ~45 segments) at once, and frame counts are
superframes: use it for delay and rate, not for loss or reorder studies.

Switching: source MAC addresses are learnt per port; unicast to a learnt address goes to
its port, broadcast, multicast and unknown destinations to every other port.

Lifecycle: --pidfile at start, --ready-file once every port is open (wait for it before
sending); both are removed on exit. SIGUSR1 writes --stats; SIGTERM, SIGINT and SIGHUP
write it and exit 0. Held frames are discarded on exit. The taps keep their namespaces
alive while linkemu runs: stop it before deleting them. Bad input: one line on stderr,
exit 2.)";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "linkemu: error: %s\n", message.c_str());
  std::exit(2);
}

struct Options {
  std::vector<std::string> ports;
  double delay_us = 0;
  double jitter_us = 0;
  double reorder_pct = 0;
  double loss_pct = 0;
  std::string rate = "0";
  bool jitter_reorders = false;
  std::uint64_t seed = 1;
  double spin_us = 0;
  std::size_t limit = 10000;
  bool gso = false;
  std::string pidfile;
  std::string ready_file;
  std::string stats_file;
};

// CLI11's own range checks print the double range in full; these say it in one short line.
CLI::Validator at_least(double low, const std::string& unit) {
  return CLI::Validator(
      [low, unit](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
        if (!(v >= low)) return text + " is below " + CLI::detail::to_string(low) + unit;
        return {};
      },
      "");
}

CLI::Validator percent() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
        if (!(v >= 0 && v <= 100)) return text + " is outside 0..100";
        return {};
      },
      "");
}

linkemu::Nanos to_ns(double us) {
  return static_cast<linkemu::Nanos>(std::llround(us * 1e3));
}

// Replaces `path` whole (write to a neighbour, then rename), so that a reader never sees half
// of it: the stats, or a ready file polled for. Returns false with errno set when it could not.
bool replace_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return false;
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    errno = err;
    return false;
  }
  return true;
}

// The --pidfile and the --ready-file: our process id. Throws with a one-line reason, so that
// the caller removes what it wrote before.
void write_pid_file(const std::string& path, const char* option) {
  if (!replace_file(path, std::to_string(::getpid()) + "\n")) {
    throw std::runtime_error(std::string("cannot write ") + option + " '" + path +
                             "': " + std::strerror(errno));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(
      "linkemu: forwards Ethernet frames between TAP devices in network namespaces,\n"
      "holding each for a netem-like link model (one process, one thread).",
      "linkemu");
  app.footer(kHelpFooter);
  app.add_option("--port", o.ports,
                 "NETNS_PATH:IFNAME of a persistent tap already created, addressed and up in "
                 "that namespace, e.g. /run/netns/h0:eth0 (repeat: one per virtual host)")
      ->type_name("NETNS:IF");
  app.add_option("--delay-us", o.delay_us, "One-way delay added to every frame, µs (default 0)")
      ->check(at_least(0, " µs"))
      ->type_name("US");
  app.add_option("--jitter-us", o.jitter_us,
                 "Uniform jitter J: the delay varies in [-J, +J] µs, never below 0 (default 0)")
      ->check(at_least(0, " µs"))
      ->type_name("US");
  app.add_option("--reorder-pct", o.reorder_pct,
                 "Percent of frames that skip the delay and overtake held ones, 0..100 (default 0)")
      ->check(percent())
      ->type_name("PCT");
  app.add_option("--loss-pct", o.loss_pct, "Percent of frames dropped, 0..100 (default 0)")
      ->check(percent())
      ->type_name("PCT");
  app.add_option("--rate", o.rate,
                 "Serialization rate of each output port in bits/s; suffixes bit, kbit, mbit, "
                 "gbit, tbit (SI), e.g. 10gbit; 0 = unlimited (default)")
      ->type_name("RATE");
  app.add_flag("--jitter-reorders", o.jitter_reorders,
               "Let jitter reorder frames as netem does (default: each link stays FIFO)");
  app.add_option("--seed", o.seed, "Seed of the loss, reorder and jitter draws (default 1)")
      ->type_name("N");
  app.add_option("--spin-us", o.spin_us,
                 "Busy-wait for departures due within this many µs instead of sleeping: "
                 "more accurate, costs a core (default 0: never spin)")
      ->check(at_least(0, " µs"))
      ->type_name("US");
  app.add_option("--limit", o.limit,
                 "Frames one output port may hold; more are dropped, as netem's limit "
                 "(default 10000)")
      ->check(at_least(1, ""))
      ->type_name("FRAMES");
  app.add_flag("--gso", o.gso,
               "Pass TCP segmentation-offload superframes (up to 64 KiB) through whole: about "
               "3x the throughput; loss, reorder and delay then act on a superframe (see below)");
  app.add_option("--pidfile", o.pidfile, "Write the process id here at start")->type_name("FILE");
  app.add_option("--ready-file", o.ready_file, "Create this file once every port is open")
      ->type_name("FILE");
  app.add_option("--stats", o.stats_file,
                 "Write counters and the forwarding overhead here as JSON on SIGUSR1 and at "
                 "exit")
      ->type_name("FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const std::exception& e) {  // CLI::ParseError included
    usage_error(e.what());
  }

  // Checked here rather than with required(): CLI11 would report a missing --port before an
  // unknown option, hiding the typo that caused it.
  if (o.ports.empty()) usage_error("at least one --port NETNS_PATH:IFNAME is required");

  linkemu::ForwarderConfig config;
  config.link.delay_ns = to_ns(o.delay_us);
  config.link.jitter_ns = to_ns(o.jitter_us);
  config.link.reorder_pct = o.reorder_pct;
  config.link.loss_pct = o.loss_pct;
  config.link.jitter_reorders = o.jitter_reorders;
  std::string rate_error;
  const auto rate = linkemu::parse_rate_bps(o.rate, &rate_error);
  if (!rate) usage_error("--rate: " + rate_error);
  config.link.rate_bps = *rate;
  config.seed = o.seed;
  config.spin_ns = to_ns(o.spin_us);
  config.limit = o.limit;
  config.gso = o.gso;

  std::vector<linkemu::PortSpec> specs;
  std::set<std::string> seen;
  try {
    for (const auto& text : o.ports) {
      specs.push_back(linkemu::parse_port_spec(text));
      if (!seen.insert(text).second) usage_error("--port '" + text + "' given twice");
    }
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  }

  // Blocked before any port opens, so a stop signal during set-up waits for the loop's
  // signalfd instead of killing the process with the ready and pid files left behind.
  sigset_t mask;
  sigemptyset(&mask);
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&mask, sig);
  if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) usage_error("sigprocmask failed");
  linkemu::UniqueFd signal_fd(::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!signal_fd.valid()) usage_error(std::string("signalfd: ") + std::strerror(errno));

  const auto remove_lifecycle_files = [&] {
    if (!o.pidfile.empty()) std::remove(o.pidfile.c_str());
    if (!o.ready_file.empty()) std::remove(o.ready_file.c_str());
  };

  // A ready file left by an earlier run would tell the caller we are up before we are.
  if (!o.ready_file.empty()) std::remove(o.ready_file.c_str());
  std::vector<linkemu::OpenPort> ports;
  try {
    if (!o.pidfile.empty()) {
      write_pid_file(o.pidfile, "--pidfile");
    }
    const linkemu::UniqueFd home = linkemu::open_home_netns();
    for (const auto& spec : specs) {
      ports.push_back({spec, linkemu::open_tap_port(spec, home.get(), o.gso)});
    }
  } catch (const std::exception& e) {
    remove_lifecycle_files();
    usage_error(e.what());
  }

  int status = 0;
  try {
    linkemu::Forwarder forwarder(std::move(ports), std::move(signal_fd), config);
    const auto write_stats = [&] {
      if (o.stats_file.empty()) return true;
      if (replace_file(o.stats_file, forwarder.stats().dump(2) + "\n")) return true;
      std::fprintf(stderr, "linkemu: error: cannot write --stats '%s': %s\n", o.stats_file.c_str(),
                   std::strerror(errno));
      return false;
    };
    if (!o.ready_file.empty()) {
      try {
        write_pid_file(o.ready_file, "--ready-file");
      } catch (const std::exception& e) {
        remove_lifecycle_files();
        usage_error(e.what());
      }
    }
    const auto end = forwarder.run([&] { write_stats(); });
    if (end == linkemu::Forwarder::End::kPortsGone) {
      std::fprintf(stderr, "linkemu: every port is closed, exiting\n");
    }
    if (!write_stats()) status = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "linkemu: error: %s\n", e.what());
    status = 1;
  }
  remove_lifecycle_files();
  return status;
}
