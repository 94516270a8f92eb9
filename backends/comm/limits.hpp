// What a peer may ask us to receive. Every decoder checks these before allocating, so a
// corrupt or hostile header can never make a rank allocate an unbounded buffer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace commbench {

struct CommLimits {
  uint32_t max_frames = 4096;
  uint64_t max_frame_bytes = 8ull << 30;     // 8 GiB
  uint64_t max_message_bytes = 16ull << 30;  // 16 GiB
};

}  // namespace commbench
