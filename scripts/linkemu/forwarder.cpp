#include "forwarder.hpp"

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "vnet_frame.hpp"

namespace linkemu {
namespace {

// Larger than any frame a tap hands over: a 64 KiB MTU or GSO superframe plus headers, with
// room for a raised gso_max_size (a short buffer would truncate frames silently).
constexpr std::size_t kMaxFrame = 256 * 1024;
// A wakeup reads at most this many frames per tap before it serves departures again, so a
// flooding sender cannot make held frames late without bound (the tap's own queue is 1,000
// frames by default, so this is "until EAGAIN" in practice).
constexpr int kReadBurst = 1024;
constexpr std::uint64_t kTimerTag = ~0ULL;
constexpr std::uint64_t kSignalTag = ~0ULL - 1;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void epoll_set(int epoll, int op, int fd, std::uint32_t events, std::uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  if (::epoll_ctl(epoll, op, fd, &ev) != 0) fail("epoll_ctl");
}

Nanos monotonic_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

Forwarder::Forwarder(std::vector<OpenPort> ports, UniqueFd signal_fd, const ForwarderConfig& config)
    : config_(config),
      signal_fd_(std::move(signal_fd)),
      epoll_(::epoll_create1(EPOLL_CLOEXEC)),
      timer_(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)),
      switch_(ports.size()),
      rng_(config.seed),
      header_bytes_(config.gso ? kVnetHeaderBytes : 0),
      scratch_(kMaxFrame),
      started_ns_(monotonic_now()) {
  if (!epoll_.valid()) fail("epoll_create1");
  if (!timer_.valid()) fail("timerfd_create");
  ports_.reserve(ports.size());
  for (auto& open : ports) ports_.emplace_back(std::move(open), config.link);
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    epoll_set(epoll_.get(), EPOLL_CTL_ADD, ports_[i].tap.get(), EPOLLIN, i);
  }
  epoll_set(epoll_.get(), EPOLL_CTL_ADD, timer_.get(), EPOLLIN, kTimerTag);
  epoll_set(epoll_.get(), EPOLL_CTL_ADD, signal_fd_.get(), EPOLLIN, kSignalTag);
}

Forwarder::End Forwarder::run(const std::function<void()>& on_usr1) {
  epoll_event events[64];
  bool stop = false;
  Nanos now = monotonic_now();
  while (!stop && std::ranges::any_of(ports_, [](const Port& p) { return !p.gone(); })) {
    const int n = ::epoll_wait(epoll_.get(), events, 64, plan_wait(now));
    if (n < 0 && errno != EINTR) fail("epoll_wait");
    for (int i = 0; i < n; ++i) {
      const std::uint64_t tag = events[i].data.u64;
      if (tag == kTimerTag) {
        std::uint64_t expirations = 0;
        // Only clears the readiness; what is due is read from the queue below.
        if (::read(timer_.get(), &expirations, sizeof expirations) < 0 && errno != EAGAIN) {
          fail("timerfd read");
        }
        timer_armed_for_ = -1;
      } else if (tag == kSignalTag) {
        signalfd_siginfo info{};
        while (::read(signal_fd_.get(), &info, sizeof info) == sizeof info) {
          if (info.ssi_signo == SIGUSR1) {
            on_usr1();
          } else {
            stop = true;
          }
        }
      } else if (!ports_[tag].gone()) {
        if (events[i].events & EPOLLIN) drain(tag);  // closes the port on a read error
        if (ports_[tag].gone()) continue;
        if (events[i].events & EPOLLOUT) flush_backlog(tag);
        if (events[i].events & (EPOLLERR | EPOLLHUP)) {
          close_port(tag, "the tap reported an error or hang-up");
        }
      }
    }
    now = flush_due();
  }
  return stop ? End::kSignalled : End::kPortsGone;
}

// `now` is at most a few instructions old (flush_due's last reading); the timer is absolute,
// so a staler one would only cost a wakeup.
int Forwarder::plan_wait(Nanos now) {
  if (queue_.empty()) return -1;  // idle: sleep in epoll_wait until a frame or a signal
  const Nanos due = queue_.top().due;
  if (due - now <= config_.spin_ns) return 0;  // due, or close enough to poll for
  // Wake early by the spin margin, then poll the rest of the way.
  const Nanos wake = due - config_.spin_ns;
  if (wake != timer_armed_for_) {
    itimerspec spec{};
    spec.it_value.tv_sec = wake / 1'000'000'000;
    spec.it_value.tv_nsec = wake % 1'000'000'000;
    if (::timerfd_settime(timer_.get(), TFD_TIMER_ABSTIME, &spec, nullptr) != 0) {
      fail("timerfd_settime");
    }
    timer_armed_for_ = wake;
  }
  return -1;
}

void Forwarder::drain(std::size_t in) {
  Port& port = ports_[in];
  for (int k = 0; k < kReadBurst; ++k) {
    const ssize_t got = ::read(port.tap.get(), scratch_.data(), scratch_.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) close_port(in, std::strerror(errno));
      return;
    }
    if (got == 0) return;
    const auto len = static_cast<std::size_t>(got);
    if (len <= header_bytes_) continue;  // nothing a switch could route
    const std::span<const std::uint8_t> frame(scratch_.data(), len);
    // Rate and byte counts see what a real wire would carry: segments, not superframes.
    const std::size_t wire = header_bytes_ != 0 ? wire_bytes(frame) : len;
    ++port.count.frames_in;
    port.count.bytes_in += wire;
    // Read per frame, after it: a frame that came in while the burst was being read must not
    // count as having arrived at its start, or its delay would be cut short.
    const Nanos now = monotonic_now();
    switch_.route(frame.subspan(header_bytes_), in, destinations_);
    if (destinations_.empty()) ++frames_unrouted_;
    for (const std::size_t out : destinations_) forward(out, frame, wire, now);
  }
}

void Forwarder::forward(std::size_t out, std::span<const std::uint8_t> frame, std::size_t wire,
                        Nanos now) {
  Port& port = ports_[out];
  if (port.gone()) return;
  if (port.held + port.backlog.size() >= config_.limit) {
    ++port.count.dropped_limit;  // tail drop, as netem's limit does
    return;
  }
  const Decision d = port.link.schedule(now, wire, rng_);
  if (d.dropped) {
    ++port.count.dropped_loss;
    return;
  }
  if (d.reordered) ++port.count.reordered;
  // Zero delay, nothing ahead of it: out at once, without a copy, the queue or the timer.
  if (d.due_ns <= now && port.held == 0 && port.backlog.empty()) {
    if (!write_frame(port, frame, wire, d.due_ns, now)) {
      hold_in_backlog(out, keep(out, d.due_ns, frame, wire));
    }
    return;
  }
  queue_.push(keep(out, d.due_ns, frame, wire));
  ++port.held;
  port.count.max_held = std::max<std::uint64_t>(port.count.max_held, port.held);
  queue_max_depth_ = std::max(queue_max_depth_, queue_.size());
}

Nanos Forwarder::flush_due() {
  Nanos now = monotonic_now();
  while (!queue_.empty() && queue_.top().due <= now) {
    const Held top = queue_.top();
    queue_.pop();
    Port& port = ports_[top.port];
    --port.held;
    if (port.gone()) {
      release_buffer(top.buffer);
      continue;
    }
    // Behind a refused frame it waits its turn there, so a port's frames keep their order.
    if (!port.backlog.empty() || !write_held(port, top, now)) hold_in_backlog(top.port, top);
    // Once per departure: it serves both the next frame's due check and its lateness, which
    // should include the writes before it.
    now = monotonic_now();
  }
  return now;
}

void Forwarder::flush_backlog(std::size_t index) {
  Port& port = ports_[index];
  while (!port.backlog.empty()) {
    if (!write_held(port, port.backlog.front(), monotonic_now())) return;  // still full
    port.backlog.pop_front();
  }
  watch_writable(index, false);
}

bool Forwarder::write_frame(Port& port, std::span<const std::uint8_t> frame, std::size_t wire,
                            Nanos due, Nanos now) {
  const ssize_t put = ::write(port.tap.get(), frame.data(), frame.size());
  if (put == static_cast<ssize_t>(frame.size())) {
    ++port.count.frames_out;
    port.count.bytes_out += wire;
    lateness_.add(now - due);
    return true;
  }
  if (put < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
    ++port.count.write_eagain;
    return false;
  }
  // EIO: the interface is down; the frame is lost as on a dead cable.
  ++port.count.write_errors;
  return true;
}

bool Forwarder::write_held(Port& port, const Held& held, Nanos now) {
  const Frame& frame = buffers_[held.buffer];
  if (!write_frame(port, frame.bytes, frame.wire, held.due, now)) return false;
  release_buffer(held.buffer);
  return true;
}

void Forwarder::hold_in_backlog(std::size_t index, Held held) {
  Port& port = ports_[index];
  port.backlog.push_back(held);
  if (port.backlog.size() == 1) watch_writable(index, true);
}

void Forwarder::watch_writable(std::size_t index, bool on) {
  epoll_set(epoll_.get(), EPOLL_CTL_MOD, ports_[index].tap.get(), EPOLLIN | (on ? EPOLLOUT : 0U),
            index);
}

void Forwarder::close_port(std::size_t index, const char* why) {
  Port& port = ports_[index];
  std::fprintf(stderr, "linkemu: port '%s' closed: %s\n", port.spec.text().c_str(), why);
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, port.tap.get(), nullptr);
  port.tap.reset();
  for (const Held& h : port.backlog) release_buffer(h.buffer);
  port.backlog.clear();
}

Forwarder::Held Forwarder::keep(std::size_t port, Nanos due, std::span<const std::uint8_t> frame,
                                std::size_t wire) {
  std::uint32_t buffer;
  if (free_buffers_.empty()) {
    buffer = static_cast<std::uint32_t>(buffers_.size());
    buffers_.emplace_back();
  } else {
    buffer = free_buffers_.back();
    free_buffers_.pop_back();
  }
  buffers_[buffer].bytes.assign(frame.begin(), frame.end());  // keeps its capacity
  buffers_[buffer].wire = wire;
  return Held{due, next_seq_++, static_cast<std::uint32_t>(port), buffer};
}

nlohmann::json Forwarder::stats() const {
  nlohmann::json ports = nlohmann::json::array();
  PortCounters total;
  for (const Port& p : ports_) {
    nlohmann::json port = summed_counters_json(p.count);
    port["port"] = p.spec.text();
    port["max_held"] = p.count.max_held;
    port["held_now"] = p.held + p.backlog.size();
    port["closed"] = p.gone();
    ports.push_back(std::move(port));
    add_summed_counters(total, p.count);
  }
  nlohmann::json totals = summed_counters_json(total);
  totals["frames_unrouted"] = frames_unrouted_;
  const LinkParams& l = config_.link;
  return {
      {"ports", ports},
      {"totals", totals},
      {"queue_max_depth", queue_max_depth_},
      {"queue_depth_now", queue_.size()},
      {"mac_addresses_learnt", switch_.learnt()},
      // Actual departure minus scheduled departure: what linkemu adds on top of the model.
      {"departure_lateness_us", lateness_.summary_us()},
      {"params",
       {{"delay_us", static_cast<double>(l.delay_ns) / 1e3},
        {"jitter_us", static_cast<double>(l.jitter_ns) / 1e3},
        {"jitter_reorders", l.jitter_reorders},
        {"reorder_pct", l.reorder_pct},
        {"loss_pct", l.loss_pct},
        {"rate_bps", l.rate_bps},
        {"seed", config_.seed},
        {"spin_us", static_cast<double>(config_.spin_ns) / 1e3},
        {"limit", config_.limit},
        {"gso", config_.gso}}},
      {"uptime_s", static_cast<double>(monotonic_now() - started_ns_) / 1e9},
  };
}

}  // namespace linkemu
