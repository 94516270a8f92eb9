// MAC learning for linkemu: which port a frame goes out of, as a learning switch decides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace linkemu {

class FrameSwitch {
 public:
  explicit FrameSwitch(std::size_t port_count) : port_count_(port_count) {}

  // Learns the frame's source on `in_port` and fills `out` with the ports it leaves by:
  // the learnt port of a unicast destination, else every port but `in_port` (broadcast,
  // multicast, unknown). A frame shorter than an Ethernet header goes nowhere.
  void route(std::span<const std::uint8_t> frame, std::size_t in_port,
             std::vector<std::size_t>& out);

  std::size_t learnt() const { return table_.size(); }

 private:
  std::size_t port_count_;
  // No ageing: the virtual hosts never move, and a host that does is relearnt from its next
  // frame, since a source seen on a new port overwrites the entry.
  std::unordered_map<std::uint64_t, std::size_t> table_;
};

}  // namespace linkemu
