// One switch port of linkemu: a TAP device inside another network namespace, opened from
// this process so that a single event loop serves every namespace.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "unique_fd.hpp"

namespace linkemu {

struct PortSpec {
  std::string netns_path;  // e.g. /run/netns/cbvc-h0
  std::string ifname;      // the tap's name inside that namespace, e.g. eth0

  // As given on the command line, for messages and stats.
  std::string text() const { return netns_path + ":" + ifname; }
};

// "NETNS_PATH:IFNAME", split at the last ':' (a path may hold colons, a device name not).
// Throws std::invalid_argument with a one-line reason.
PortSpec parse_port_spec(std::string_view text);

// Why a port could not be opened, in one line that names the port and the fix.
class PortError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The descriptor of the process's own network namespace, to come back to after each port.
UniqueFd open_home_netns();

// Enters the port's namespace, attaches to its (already created, persistent) tap with
// IFF_TAP | IFF_NO_PI, makes the descriptor non-blocking and returns to `home_netns`. The
// descriptor stays bound to the tap in the other namespace. With `gso`, frames carry a
// virtio-net header and the tap offers checksum and TCP segmentation offload, so the
// namespace's stack hands over 64 KiB superframes (vnet_frame.hpp). Throws PortError.
UniqueFd open_tap_port(const PortSpec& spec, int home_netns, bool gso);

}  // namespace linkemu
