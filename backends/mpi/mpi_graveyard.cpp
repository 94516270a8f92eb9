#include "mpi/mpi_graveyard.hpp"

#include "mpi/mpi_wire.hpp"

namespace commbench::mpi {

void Graveyard::bury(MPI_Request req, Channel* ch, std::unique_ptr<std::byte[]> keep) {
  std::shared_ptr<Channel> owner;
  if (ch) {
    owner = ch->shared_from_this();
    ++ch->graves;
  }
  graves_.push_back(Grave{req, std::move(owner), std::move(keep)});
  stats_.graves = graves_.size();
}

void Graveyard::keep_while_graves(std::unique_ptr<std::byte[]> buf) {
  if (graves_.empty()) return;  // every request that could read it has finished
  kept_.push_back(std::move(buf));
  stats_.kept_buffers = kept_.size();
}

bool Graveyard::reap(std::vector<std::shared_ptr<Channel>>& settled) {
  bool did = false;
  for (size_t i = 0; i < graves_.size();) {
    int flag = 0;
    MPI_Status st;
    MPI_Test(&graves_[i].req, &flag, &st);
    if (!flag) {
      ++i;
      continue;
    }
    std::shared_ptr<Channel> ch = std::move(graves_[i].ch);
    graves_[i] = std::move(graves_.back());
    graves_.pop_back();
    did = true;
    if (ch) {
      --ch->graves;
      int cancelled = 0;
      MPI_Test_cancelled(&st, &cancelled);
      if (!cancelled) ++ch->received;  // the cancel came too late: it took a message
      settled.push_back(std::move(ch));
    }
  }
  stats_.graves = graves_.size();
  if (graves_.empty() && !kept_.empty()) {
    kept_.clear();
    stats_.kept_buffers = 0;
  }
  return did;
}

size_t discard_arrived(int source, int tag, MPI_Comm comm, std::vector<std::byte>& scratch) {
  size_t count = 0;
  for (;;) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    MPI_Improbe(source, tag, comm, &flag, &msg, &st);
    if (!flag) break;
    size_t n = received_bytes(st);
    if (scratch.size() < n) scratch.resize(n);
#if MPI_VERSION >= 4
    MPI_Mrecv_c(scratch.data(), static_cast<MPI_Count>(n), MPI_BYTE, &msg, MPI_STATUS_IGNORE);
#else
    MPI_Mrecv(scratch.data(), static_cast<int>(n), MPI_BYTE, &msg, MPI_STATUS_IGNORE);
#endif
    ++count;
  }
  if (scratch.size() > (64u << 20)) std::vector<std::byte>().swap(scratch);
  return count;
}

}  // namespace commbench::mpi
