// linkemu's event loop: one thread, epoll on every tap, one timerfd for the earliest frame
// held, a signalfd for SIGTERM/SIGINT/SIGHUP (stop) and SIGUSR1 (stats now).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "forward_stats.hpp"
#include "frame_switch.hpp"
#include "link_model.hpp"
#include "tap_port.hpp"
#include "unique_fd.hpp"

namespace linkemu {

struct ForwarderConfig {
  LinkParams link;
  std::uint64_t seed = 1;
  Nanos spin_ns = 0;          // busy-wait for departures closer than this (0: never spin)
  std::size_t limit = 10000;  // frames one output port may hold; more are dropped
  bool gso = false;           // the taps were opened with a virtio-net header
};

struct OpenPort {
  PortSpec spec;
  UniqueFd tap;
};

class Forwarder {
 public:
  // `signal_fd` reads the signals the caller has blocked (see the header comment).
  Forwarder(std::vector<OpenPort> ports, UniqueFd signal_fd, const ForwarderConfig& config);

  enum class End { kSignalled, kPortsGone };
  // Forwards until a stop signal, or until no port is left; `on_usr1` runs on SIGUSR1.
  End run(const std::function<void()>& on_usr1);

  nlohmann::json stats() const;

 private:
  struct Held {
    Nanos due;
    std::uint64_t seq;  // arrival order: equal due times leave first-come first-served
    std::uint32_t port;
    std::uint32_t buffer;
  };
  struct LeavesLater {
    bool operator()(const Held& a, const Held& b) const {
      return a.due != b.due ? a.due > b.due : a.seq > b.seq;
    }
  };
  struct Frame {
    std::vector<std::uint8_t> bytes;  // as read from the tap (with the virtio-net header)
    std::size_t wire = 0;             // what it takes on a wire (vnet_frame.hpp)
  };
  struct Port {
    Port(OpenPort open, const LinkParams& params)
        : spec(std::move(open.spec)), tap(std::move(open.tap)), link(params) {}
    bool gone() const { return !tap.valid(); }  // closed after an error

    PortSpec spec;
    UniqueFd tap;
    PortLink link;
    PortCounters count;
    std::size_t held = 0;      // frames of this port in the departure queue
    std::deque<Held> backlog;  // due frames the tap refused with EAGAIN, oldest first
  };

  void drain(std::size_t port);
  void forward(std::size_t out, std::span<const std::uint8_t> frame, std::size_t wire, Nanos now);
  Nanos flush_due();  // returns the time it last read
  void flush_backlog(std::size_t port);
  // Writes now; false if the tap said EAGAIN (nothing written, the caller keeps the frame).
  // Lateness is counted from `now`: the clock read just before (on the path without the
  // queue, the frame's arrival reading, a route and a schedule earlier).
  bool write_frame(Port& port, std::span<const std::uint8_t> frame, std::size_t wire, Nanos due,
                   Nanos now);
  // write_frame for a frame held in a buffer, which it gives back once written.
  bool write_held(Port& port, const Held& held, Nanos now);
  void hold_in_backlog(std::size_t port, Held held);
  void watch_writable(std::size_t port, bool on);
  void close_port(std::size_t port, const char* why);
  int plan_wait(Nanos now);
  // A copy of the frame in a free buffer, to leave `port` at `due`.
  Held keep(std::size_t port, Nanos due, std::span<const std::uint8_t> frame, std::size_t wire);
  void release_buffer(std::uint32_t buffer) { free_buffers_.push_back(buffer); }

  ForwarderConfig config_;
  std::vector<Port> ports_;
  UniqueFd signal_fd_;
  UniqueFd epoll_;
  UniqueFd timer_;
  Nanos timer_armed_for_ = -1;
  FrameSwitch switch_;
  Rng rng_;
  std::priority_queue<Held, std::vector<Held>, LeavesLater> queue_;
  std::uint64_t next_seq_ = 0;
  std::vector<Frame> buffers_;
  std::vector<std::uint32_t> free_buffers_;
  std::size_t header_bytes_;  // virtio-net header before each frame (0 without --gso)
  std::vector<std::uint8_t> scratch_;
  std::vector<std::size_t> destinations_;
  std::size_t queue_max_depth_ = 0;
  std::uint64_t frames_unrouted_ = 0;
  LatenessSample lateness_;
  Nanos started_ns_;
};

}  // namespace linkemu
