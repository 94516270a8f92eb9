#include "tap_port.hpp"

#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "vnet_frame.hpp"

namespace linkemu {
namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

// The part of open_tap_port that runs inside the port's namespace.
UniqueFd attach_tap(const PortSpec& spec, const std::string& where, bool gso) {
  // Without this check TUNSETIFF would quietly create a new, unconfigured tap.
  if (::if_nametoindex(spec.ifname.c_str()) == 0) {
    throw PortError(where + "no device '" + spec.ifname + "' in " + spec.netns_path +
                    " (create it first: ip tuntap add dev " + spec.ifname + " mode tap)");
  }
  // Opened inside the namespace: a tun descriptor belongs to the namespace it was opened in.
  UniqueFd tap(::open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK));
  if (!tap.valid()) {
    const int err = errno;
    if (err == ENOENT) throw PortError("/dev/net/tun is missing (load the tun module)");
    throw PortError(where + "cannot open /dev/net/tun: " + errno_text(err));
  }
  ifreq ifr{};
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI | (gso ? IFF_VNET_HDR : 0);
  std::memcpy(ifr.ifr_name, spec.ifname.c_str(), spec.ifname.size());
  if (::ioctl(tap.get(), TUNSETIFF, &ifr) != 0) {
    const int err = errno;
    std::string why = errno_text(err);
    if (err == EBUSY) why = "already attached by another process";
    if (err == EINVAL) why = "not a tap device (or a multi-queue one)";
    if (err == EPERM) why = "not permitted (linkemu must run as root or as the tap's owner)";
    throw PortError(where + "cannot attach to '" + spec.ifname + "': " + why);
  }
  // Offloads are a property of the device and outlive this descriptor: set them both ways,
  // or a tap last used with --gso keeps sending superframes a plain read cannot carry.
  const unsigned long offloads = gso ? TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN : 0UL;
  int header = static_cast<int>(kVnetHeaderBytes);
  if ((gso && ::ioctl(tap.get(), TUNSETVNETHDRSZ, &header) != 0) ||
      ::ioctl(tap.get(), TUNSETOFFLOAD, offloads) != 0) {
    throw PortError(where + "cannot set the tap's offloads: " + errno_text(errno));
  }
  return tap;
}

}  // namespace

PortSpec parse_port_spec(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    throw std::invalid_argument("--port '" + std::string(text) +
                                "': expected NETNS_PATH:IFNAME, e.g. /run/netns/h0:eth0");
  }
  PortSpec spec{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
  if (spec.ifname.size() >= IFNAMSIZ || spec.ifname.find('/') != std::string::npos) {
    throw std::invalid_argument("--port '" + std::string(text) + "': '" + spec.ifname +
                                "' is not a valid interface name (at most " +
                                std::to_string(IFNAMSIZ - 1) + " characters, no '/')");
  }
  return spec;
}

UniqueFd open_home_netns() {
  UniqueFd home(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!home.valid()) {
    throw PortError("cannot open /proc/self/ns/net: " + errno_text(errno));
  }
  return home;
}

UniqueFd open_tap_port(const PortSpec& spec, int home_netns, bool gso) {
  const std::string where = "--port '" + spec.text() + "': ";
  UniqueFd netns(::open(spec.netns_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!netns.valid()) {
    throw PortError(where + "cannot open network namespace " + spec.netns_path + ": " +
                    errno_text(errno));
  }
  if (::setns(netns.get(), CLONE_NEWNET) != 0) {
    const int err = errno;
    if (err == EPERM) {
      throw PortError(where + "setns: " + errno_text(err) + " (linkemu must run as root)");
    }
    if (err == EINVAL) throw PortError(where + spec.netns_path + " is not a network namespace");
    throw PortError(where + "setns: " + errno_text(err));
  }
  // Back home on every way out: a process left in a virtual host's namespace would open the
  // next port there.
  UniqueFd tap;
  try {
    tap = attach_tap(spec, where, gso);
  } catch (...) {
    // The first error is the one to report; the process exits on it anyway.
    static_cast<void>(::setns(home_netns, CLONE_NEWNET));
    throw;
  }
  if (::setns(home_netns, CLONE_NEWNET) != 0) {
    throw PortError("cannot return to the original network namespace: " + errno_text(errno));
  }
  return tap;
}

}  // namespace linkemu
