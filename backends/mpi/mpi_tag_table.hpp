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
#include <string>
#include <vector>

#include "mpi/mpi_stats.hpp"

namespace commbench::mpi {

// The tag space bounds how many connection ends one process holds at once: MPI_TAG_UB
// (at least 32,767 by the standard; this backend uses at most 2^24 of it), or fewer with
// --backend-opt max_tags=N (tests reach the limit with a few connections).
inline constexpr const char* kMaxTagsKey = "max_tags";

class TagTable {
 public:
  // Tags first..limit (inclusive); `tag_ub` is MPI's, for the message.
  TagTable(int first, int limit, int tag_ub, ContextStats& stats)
      : first_(first), next_(first), limit_(limit), tag_ub_(tag_ub), stats_(stats) {}
  int alloc();  // throws CommError (exhausted_message()) when every tag is live
  bool full() const noexcept { return free_.empty() && next_ > limit_; }
  // Connection ends this process may hold at once.
  int capacity() const noexcept { return limit_ - first_ + 1; }
  // The one line exhaustion reads: the limit, where it comes from, the option.
  std::string exhausted_message() const;
  void leak(int tag);  // a connect that timed out: its reply may still come on the tag
  void free(int tag);

 private:
  int first_;
  int next_;
  int limit_;
  int tag_ub_;
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
