#include "vnet_frame.hpp"

namespace linkemu {
namespace {

// linux/virtio_net.h, copied as numbers: the header is a wire format, and these values are
// fixed by the virtio specification.
constexpr std::uint8_t kGsoNone = 0;
constexpr std::uint8_t kGsoTcpV4 = 1;
constexpr std::uint8_t kGsoTcpV6 = 4;
constexpr std::uint8_t kGsoUdpL4 = 5;
constexpr std::uint8_t kGsoEcn = 0x80;

std::uint16_t le16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>(b[at] | (b[at + 1] << 8));
}

}  // namespace

std::size_t wire_bytes(std::span<const std::uint8_t> frame) {
  if (frame.size() <= kVnetHeaderBytes) return 0;
  const std::size_t len = frame.size() - kVnetHeaderBytes;
  const std::uint8_t gso_type = frame[1] & static_cast<std::uint8_t>(~kGsoEcn);
  const std::size_t gso_size = le16(frame, 4);
  const std::size_t csum_start = le16(frame, 6);  // from the Ethernet header: the L4 header
  if (gso_type == kGsoNone || gso_size == 0) return len;
  // hdr_len (bytes 2-3) is only a hint (the kernel fills in its linear part), so the headers
  // are measured from the checksum start and the L4 header itself.
  std::size_t headers = 0;
  if (gso_type == kGsoTcpV4 || gso_type == kGsoTcpV6) {
    const std::size_t doff_at = kVnetHeaderBytes + csum_start + 12;
    if (doff_at >= frame.size()) return len;
    headers = csum_start + static_cast<std::size_t>(frame[doff_at] >> 4) * 4;
  } else if (gso_type == kGsoUdpL4) {
    headers = csum_start + 8;
  } else {
    return len;  // UFO and others we never ask for
  }
  if (headers >= len) return len;
  const std::size_t payload = len - headers;
  const std::size_t segments = (payload + gso_size - 1) / gso_size;
  return len + (segments - 1) * headers;
}

}  // namespace linkemu
