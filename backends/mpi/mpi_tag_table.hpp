// The allocation tables of connection ends: incoming tags, and lanes per peer.
//
// Tags come back to the free list only when both ends have closed and every message the
// peer sent on the tag has been received or drained (the context decides when), so a
// reused tag never sees a stale message and 10,000 connect/close cycles use the same
// handful of tags (MPI4Dask's tag table grows by 200 per connection and never shrinks).
// A lane is one of kLanes duplicates of MPI_COMM_WORLD; an end that holds lane L for peer
// P is the only receiver of what P sends it on lane L (mpi_context.hpp). Both tables only
// count: which communicator a lane is lives in the context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpi/mpi_stats.hpp"

namespace commbench::mpi {

class TagTable {
 public:
  // Tags first..limit (inclusive).
  TagTable(int first, int limit, ContextStats& stats)
      : next_(first), limit_(limit), stats_(stats) {}
  int alloc();         // throws CommError when every tag is live
  void leak(int tag);  // a connect that timed out: its reply may still come on the tag
  void free(int tag);

 private:
  int next_;
  int limit_;
  std::vector<int> free_;
  ContextStats& stats_;
};

class LaneTable {
 public:
  static constexpr int kMaxLanes = 32;  // one bit each per peer
  LaneTable(int lanes, size_t peers, ContextStats& stats)
      : lanes_(lanes), taken_(peers, 0), stats_(stats) {}
  // A free lane for receiving from `peer`, or -1 when all are taken.
  int alloc(int peer);
  void leak(int lane);  // as TagTable::leak: stays taken, a late accept may still send on it
  void free(int peer, int lane);  // lane < 0: none was held

 private:
  int lanes_;
  std::vector<uint32_t> taken_;  // by peer world rank: bit L = lane L in use
  ContextStats& stats_;
};

}  // namespace commbench::mpi
