// Pending requests tested together by one MPI_Testsome, each tied to the Op that owns it:
// the batched engine's set and the progress thread's set are both one of these. `Slot`
// is the Op field holding an op's index here; the two owners use separate fields
// (op.slot, op.thread_slot), since the loop reads op.slot while the thread owns its set.
// While an op is in the set, its live request is here, not in op.req.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "mpi/mpi_op.hpp"

namespace commbench::mpi {

template <size_t Op::*Slot>
class RequestSet {
 public:
  bool empty() const noexcept { return reqs_.empty(); }
  Op* last() const noexcept { return ops_.back(); }
  MPI_Request request_of(const Op& op) const noexcept { return reqs_[op.*Slot]; }

  void add(Op& op, MPI_Request r) {
    op.*Slot = reqs_.size();
    reqs_.push_back(r);
    ops_.push_back(&op);
  }
  // Takes `op` out (if it is here) and returns its live request.
  MPI_Request remove(Op& op) noexcept {
    size_t i = op.*Slot;
    if (i == Op::npos) return MPI_REQUEST_NULL;
    MPI_Request r = reqs_[i];
    size_t last = reqs_.size() - 1;
    if (i != last) {
      reqs_[i] = reqs_[last];
      ops_[i] = ops_[last];
      ops_[i]->*Slot = i;
    }
    reqs_.pop_back();
    ops_.pop_back();
    op.*Slot = Op::npos;
    return r;
  }
  // One MPI_Testsome: every op whose request finished gets its status, leaves the set
  // (op.req = MPI_REQUEST_NULL) and is appended to `done`. False if none finished.
  bool test(std::vector<Op*>& done) {
    if (indices_.size() < reqs_.size()) {
      indices_.resize(reqs_.size());
      statuses_.resize(reqs_.size());
    }
    int outcount = 0;
    int rc = MPI_Testsome(static_cast<int>(reqs_.size()), reqs_.data(), &outcount, indices_.data(),
                          statuses_.data());
    if (outcount == MPI_UNDEFINED || outcount == 0) return false;
    for (int k = 0; k < outcount; ++k) {
      Op* op = ops_[static_cast<size_t>(indices_[static_cast<size_t>(k)])];
      op->status = statuses_[static_cast<size_t>(k)];
      if (rc == MPI_SUCCESS) op->status.MPI_ERROR = MPI_SUCCESS;  // only set for ERR_IN_STATUS
      op->req = MPI_REQUEST_NULL;
      op->*Slot = Op::npos;
      done.push_back(op);
    }
    // Drop the finished entries before anyone completes them: completing an op may
    // abandon others in the set.
    size_t w = 0;
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (ops_[i]->*Slot == Op::npos) continue;
      ops_[w] = ops_[i];
      reqs_[w] = reqs_[i];
      ops_[w]->*Slot = w;
      ++w;
    }
    ops_.resize(w);
    reqs_.resize(w);
    return true;
  }
  void clear() noexcept {
    reqs_.clear();
    ops_.clear();
  }

 private:
  std::vector<MPI_Request> reqs_;
  std::vector<Op*> ops_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
};

}  // namespace commbench::mpi
