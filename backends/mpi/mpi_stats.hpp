// Counters of the process's MPI context (tags, lanes, graveyard), read by the multi-rank
// tests and tools. One struct that every part of the context updates in place, so a reader
// can hold a reference and watch it change while the loop runs.
#pragma once

#include <cstdint>

namespace commbench::mpi {

struct ContextStats {
  uint64_t tags_allocated = 0;  // distinct tags ever handed out (the high-water mark)
  uint64_t tags_live = 0;
  uint64_t lanes_live = 0;     // connection ends receiving on a lane
  uint64_t bare_received = 0;  // messages that arrived without a frame header
  uint64_t channels_retired = 0;
  uint64_t graves = 0;
  uint64_t kept_buffers = 0;  // buffers held for requests in the graveyard
  double setup_s = 0;         // wall time of the collective start-up (pair comms)
};

}  // namespace commbench::mpi
