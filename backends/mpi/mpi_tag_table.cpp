#include "mpi/mpi_tag_table.hpp"

#include <string>

#include "comm/errors.hpp"

namespace commbench::mpi {

int TagTable::alloc() {
  int tag;
  if (!free_.empty()) {
    tag = free_.back();
    free_.pop_back();
  } else {
    if (next_ > limit_) throw CommError(exhausted_message());
    tag = next_++;
    ++stats_.tags_allocated;
  }
  ++stats_.tags_live;
  return tag;
}

std::string TagTable::exhausted_message() const {
  return "mpi backend: out of MPI tags: a rank holds at most " + std::to_string(capacity()) +
         " connection ends at once, one tag each (tags " + std::to_string(first_) + ".." +
         std::to_string(limit_) + "; usable up to " + std::to_string(tag_ub_) +
         ", MPI_TAG_UB capped at 2^24" + "): close connections, or raise --backend-opt " +
         kMaxTagsKey + "=N (at most " + std::to_string(tag_ub_ - first_ + 1) + ")";
}

void TagTable::leak(int) {
  --stats_.tags_live;
}

void TagTable::free(int tag) {
  free_.push_back(tag);
  --stats_.tags_live;
}

int LaneTable::alloc(int peer) {
  uint32_t& taken = taken_[static_cast<size_t>(peer)];
  for (int l = 0; l < lanes_; ++l)
    if (!(taken & (1u << l))) {
      taken |= 1u << l;
      ++stats_.lanes_live;
      return l;
    }
  return -1;
}

void LaneTable::leak(int lane) {
  if (lane >= 0) --stats_.lanes_live;
}

void LaneTable::free(int peer, int lane) {
  if (lane < 0) return;
  taken_[static_cast<size_t>(peer)] &= ~(1u << lane);
  --stats_.lanes_live;
}

}  // namespace commbench::mpi
