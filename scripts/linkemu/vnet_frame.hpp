// Frames with a virtio-net header in front (taps opened with IFF_VNET_HDR, linkemu --gso):
// the kernel hands over TCP/UDP segmentation-offload "superframes" of up to 64 KiB, which
// linkemu forwards whole, as a hypervisor's switch does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace linkemu {

// struct virtio_net_hdr without mergeable buffers (linux/virtio_net.h), the taps' default.
inline constexpr std::size_t kVnetHeaderBytes = 10;

// The bytes a superframe occupies on a real wire once cut into MTU-sized frames: its payload
// plus a copy of the Ethernet/IP/TCP (or UDP) headers per extra segment. `frame` starts at
// the virtio-net header. A frame without segmentation, or one we cannot parse, counts as its
// own length (without the virtio-net header).
std::size_t wire_bytes(std::span<const std::uint8_t> frame);

}  // namespace linkemu
