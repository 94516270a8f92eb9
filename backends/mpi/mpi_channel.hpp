// One end of one mpi:// connection as the layers below the comm see it: where its messages
// travel (routes), how many went each way (the close protocol compares the counts before
// a tag may be reused; mpi_context.hpp), and a narrow hook back to the comm that owns it.
// Its own header so the engine and the context reach a connection without including the
// comm (which sits above them).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>

namespace commbench::mpi {

class Context;

// Where one direction of a connection travels: a lane (any tag, the tag tells the
// layout) or the pair communicator with the receiving end's tag (always framed).
struct Route {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;   // the other end's rank in `comm`
  int lane = -1;  // >= 0: a lane; -1: the pair communicator
  bool on_lane() const noexcept { return lane >= 0; }
};

// Tags on a lane.
constexpr int kLaneTagFramed = 0;  // frame header (+ inline frames), or an out-of-line piece
constexpr int kLaneTagBare = 1;    // the message is one host frame, these bytes, no header

// What the engine and the context may ask of the comm that owns a channel: once the peer
// has closed (its notice, then every later receive), fail the reads no message will ever
// match. Called only after the peer's close, never on a message of an open connection.
class ChannelOwner {
 public:
  virtual void fail_unmatchable_reads() noexcept = 0;

 protected:
  ~ChannelOwner() = default;
};

struct Channel : std::enable_shared_from_this<Channel> {
  Context& ctx;
  int peer_world;          // the peer's rank in MPI_COMM_WORLD
  int in_tag;              // ours, from the free list: names this end in control messages
                           // and is the receive tag when `in` is not a lane
  int out_tag;             // the peer's in_tag
  Route in;                // how the peer's messages reach us
  Route out;               // how ours reach the peer
  uint64_t sent = 0;       // MPI messages we posted through `out`
  uint64_t received = 0;   // MPI messages we received through `in`
  uint64_t peer_sent = 0;  // from the peer's close notice
  bool peer_closed = false;
  bool local_closed = false;
  int graves = 0;                 // cancelled receives through `in` not yet completed
  ChannelOwner* owner = nullptr;  // the live comm, told when the peer closes

  Channel(Context& c, int pw, int in_t, int out_t, Route in_r, Route out_r)
      : ctx(c), peer_world(pw), in_tag(in_t), out_tag(out_t), in(in_r), out(out_r) {}
  // The tag our receives match: any on a lane (the tag tells the layout), else in_tag.
  int receive_tag() const noexcept { return in.on_lane() ? MPI_ANY_TAG : in_tag; }
  // Every message the peer will ever send has arrived.
  bool exhausted() const noexcept { return peer_closed && received == peer_sent; }
  // A receive through `in` completed (or a buried one took a message).
  void count_received() noexcept {
    ++received;
    if (peer_closed && owner) owner->fail_unmatchable_reads();
  }
};

}  // namespace commbench::mpi
