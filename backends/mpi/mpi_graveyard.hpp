// What nobody waits for any more: requests whose owner gave up on them (a cancelled
// receive, a fire-and-forget control send, the sends of an aborted write), the buffers
// those requests may still read, and messages that arrived for a connection already
// closed. MPI must never be left writing into or reading from memory nobody owns, and a
// tag may be reused only once every message sent on it has been taken; this is where both
// are waited out, off the path of any live message.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "mpi/mpi_channel.hpp"
#include "mpi/mpi_stats.hpp"

namespace commbench::mpi {

class Graveyard {
 public:
  explicit Graveyard(ContextStats& stats) : stats_(stats) {}

  // Tested until it completes, keeping `keep` alive. A receive on `ch` counts as one
  // received message if the cancel came too late and it took one.
  void bury(MPI_Request req, Channel* ch, std::unique_ptr<std::byte[]> keep = {});
  // A buffer that several buried requests may still read (a cancelled write's staging
  // copy, which holds its header and inline frames): freed once the graveyard is empty,
  // since no single grave knows it is the last reader. The price of not tracking readers
  // per buffer: while one buried request never completes (a send to a rank that died),
  // every buffer kept after it stays until exit.
  void keep_while_graves(std::unique_ptr<std::byte[]> buf);
  // Tests every grave once. The channels of finished receives are appended to `settled`
  // (the context may now retire them). True if a request finished.
  bool reap(std::vector<std::shared_ptr<Channel>>& settled);

 private:
  struct Grave {
    MPI_Request req;
    std::shared_ptr<Channel> ch;
    std::unique_ptr<std::byte[]> keep;
  };
  std::vector<Grave> graves_;
  std::vector<std::unique_ptr<std::byte[]>> kept_;  // see keep_while_graves
  ContextStats& stats_;
};

// Receives and drops every message already arrived on `comm` that matches source and
// tag; returns how many. `scratch` is the landing buffer, reused across calls.
size_t discard_arrived(int source, int tag, MPI_Comm comm, std::vector<std::byte>& scratch);

}  // namespace commbench::mpi
