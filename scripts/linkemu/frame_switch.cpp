#include "frame_switch.hpp"

namespace linkemu {
namespace {

constexpr std::size_t kMacBytes = 6;
constexpr std::size_t kEthernetHeader = 14;

std::uint64_t mac_at(std::span<const std::uint8_t> frame, std::size_t offset) {
  std::uint64_t mac = 0;
  for (std::size_t i = 0; i < kMacBytes; ++i) mac = (mac << 8) | frame[offset + i];
  return mac;
}

// The group bit (least significant bit of the first octet) marks broadcast and multicast.
bool is_group(std::span<const std::uint8_t> frame, std::size_t offset) {
  return (frame[offset] & 1) != 0;
}

}  // namespace

void FrameSwitch::route(std::span<const std::uint8_t> frame, std::size_t in_port,
                        std::vector<std::size_t>& out) {
  out.clear();
  if (frame.size() < kEthernetHeader) return;
  // A group source address is invalid on Ethernet; learning it would misroute multicast.
  if (!is_group(frame, kMacBytes)) table_[mac_at(frame, kMacBytes)] = in_port;
  if (!is_group(frame, 0)) {
    const auto hit = table_.find(mac_at(frame, 0));
    if (hit != table_.end()) {
      // A frame addressed to its own port stays there, as a switch filters it.
      if (hit->second != in_port) out.push_back(hit->second);
      return;
    }
  }
  for (std::size_t port = 0; port < port_count_; ++port) {
    if (port != in_port) out.push_back(port);
  }
}

}  // namespace linkemu
