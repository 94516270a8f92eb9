// Process-wide MPI state shared by every mpi:// backend instance: the communicators,
// per-connection tags, the control channel, listeners, and requests left behind.
//
// Isolation. Data travels on the pair communicators (pair_comms.hpp). Each connection
// end owns an *incoming tag* allocated from a free list; the peer sends to it. Tags come
// back to the free list only when both ends have closed and every message the peer sent
// on the tag has been received or drained, so a reused tag can never see a stale message
// and 10,000 connect/close cycles use the same handful of tags (MPI4Dask's tag table
// grows by 200 per connection and never shrinks). No per-connection MPI_Comm_dup: dup is
// collective and matched in call order on the pair communicator, which concurrent
// connections in opposite directions would have to serialize.
//
// Lanes: a few more duplicates of MPI_COMM_WORLD (kLanes). A connection end that holds
// lane L for its peer P is the only receiver of anything P sends it on lane L, so it may
// receive with MPI_ANY_TAG and the *tag* can say how the message is laid out: a small
// single-frame message then travels without the 20-byte frame header (mpi_wire.hpp).
// Both ends ask for a lane of their own in the handshake; an end that finds all lanes
// for that peer taken (more than kLanes connections with one peer) receives on its tag
// on the pair communicator, with every message framed. Lanes are freed like tags.
//
// Control channel: a private duplicate of MPI_COMM_WORLD carries
//   kTagConnect  connector -> listener rank: {service, connector's incoming tag, nonce}
//   kTagNotice   "I closed; I sent you N messages on your tag T"
//   reply        listener rank -> connector, on tag = the connector's incoming tag:
//                {accepted|refused, listener's incoming tag, nonce}
// One receive for each of the first two is always posted while an engine exists.
// Creating the context is collective over MPI_COMM_WORLD (the first mpi backend of a
// process must be created on every rank); it lives until the process exits.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mpi/pair_comms.hpp"

namespace commbench::mpi {

class Context;
class MpiComm;

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

// One end of one connection.
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
  int graves = 0;            // cancelled receives through `in` not yet completed
  MpiComm* owner = nullptr;  // the live comm, told when the peer closes

  Channel(Context& c, int pw, int in_t, int out_t, Route in_r, Route out_r)
      : ctx(c), peer_world(pw), in_tag(in_t), out_tag(out_t), in(in_r), out(out_r) {}
  // The tag our receives match: any on a lane (the tag tells the layout), else in_tag.
  int receive_tag() const noexcept { return in.on_lane() ? MPI_ANY_TAG : in_tag; }
  // Every message the peer will ever send has arrived.
  bool exhausted() const noexcept { return peer_closed && received == peer_sent; }
};

struct ListenerRec {
  // Called for each accepted connection with its channel (on the poller's turn).
  std::function<void(std::shared_ptr<Channel>, const std::string& peer)> on_accept;
};

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

class Context {
 public:
  static constexpr int kTagConnect = 1;
  static constexpr int kTagNotice = 2;
  static constexpr int kFirstDataTag = 16;
  static constexpr int kLanes = 8;

  // The process's context; the first call is collective over MPI_COMM_WORLD. Checks the
  // MPI thread level (initializes MPI itself if nobody did, as in unit tests).
  static std::shared_ptr<Context> acquire(PairMethod method, bool method_given);
  // Null until the first acquire().
  static Context* current() noexcept;
  // Frees the communicators this context duplicated, then waits for every rank (see the
  // definition). Run by MPI_Finalize (through an attribute on MPI_COMM_SELF), after which
  // the context must not be used.
  void release_communicators() noexcept;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  MPI_Comm control() const noexcept { return ctl_; }
  PairMethod pair_method() const noexcept { return pairs_.method; }
  const ContextStats& stats() const noexcept { return stats_; }
  void count_bare_received() noexcept { ++stats_.bare_received; }

  // Tags and channels.
  int alloc_tag();
  void leak_tag(int tag);  // a connect that timed out: its reply may still come
  void free_tag(int tag);
  // A free lane for receiving from `peer_world`, or -1 when all kLanes are taken.
  int alloc_lane(int peer_world);
  void leak_lane(int lane);  // as leak_tag
  void free_lane(int peer_world, int lane);
  // in_lane: ours (-1: none); out_lane: the peer's (-1: it receives on out_tag).
  std::shared_ptr<Channel> open_channel(int peer_world, int in_tag, int out_tag, int in_lane,
                                        int out_lane);
  // The comm is gone: sends a close notice and drains until the tag can be reused.
  void close_channel(const std::shared_ptr<Channel>& ch);

  // Listeners by service (0 = pick a free one); returns the service. Throws CommError.
  int add_listener(int service, ListenerRec rec);
  void remove_listener(int service) noexcept;

  // A request nobody waits for any more (cancelled, or a fire-and-forget send): tested
  // until it completes, keeping `keep` alive. A receive on `ch` is counted if it got data.
  void bury(MPI_Request req, Channel* ch, std::unique_ptr<std::byte[]> keep = {});
  // A buffer that several buried requests may still read (a cancelled write's staging
  // copy, which holds its header and inline frames): freed once the graveyard is empty,
  // since no single grave knows it is the last reader. The price of not tracking readers
  // per buffer: while one buried request never completes (a send to a rank that died),
  // every buffer kept after it stays until exit.
  void keep_while_graves(std::unique_ptr<std::byte[]> buf);
  // Sends a small control message without waiting for it.
  void send_control(const void* data, size_t bytes, int dest, int tag);

  // Engines register while they exist: the control receives are posted while one does.
  void engine_added();
  void engine_removed();
  bool has_work() const noexcept { return engines_ > 0; }
  // Control messages, graveyard, draining. True if something happened.
  bool poll();

 private:
  Context(PairMethod method);
  void post_control_receives();
  void cancel_control_receives();
  void on_connect_request(const MPI_Status& st);
  void on_notice(const MPI_Status& st);
  // Receives and drops every message already arrived that matches; returns how many.
  size_t discard_arrived(int source, int tag, MPI_Comm comm);
  bool drain(Channel& ch);
  void maybe_retire(const std::shared_ptr<Channel>& ch);

  int rank_ = 0, size_ = 1;
  int tag_limit_ = 0;
  MPI_Comm ctl_ = MPI_COMM_NULL;
  PairComms pairs_;
  std::vector<MPI_Comm> lanes_;
  std::vector<uint32_t> lanes_taken_;  // by peer world rank: bit L = lane L in use
  int engines_ = 0;
  int next_tag_ = kFirstDataTag;
  std::vector<int> free_tags_;
  std::unordered_map<int, std::shared_ptr<Channel>> channels_;  // by in_tag
  std::vector<std::shared_ptr<Channel>> zombies_;               // locally closed, draining
  std::map<int, ListenerRec> listeners_;
  struct Grave {
    MPI_Request req;
    std::shared_ptr<Channel> ch;
    std::unique_ptr<std::byte[]> keep;
  };
  std::vector<Grave> graves_;
  std::vector<std::unique_ptr<std::byte[]>> kept_;  // see keep_while_graves
  // Control receives.
  MPI_Request connect_req_ = MPI_REQUEST_NULL;
  MPI_Request notice_req_ = MPI_REQUEST_NULL;
  std::byte connect_buf_[64] = {};
  std::byte notice_buf_[64] = {};
  std::vector<std::byte> scratch_;
  ContextStats stats_;
};

// Wire structs of the control channel (same-architecture peers: plain memcpy).
struct ConnectRequest {
  static constexpr uint32_t kMagic = 0x514d4243;  // "CBMQ"
  uint32_t magic = kMagic;
  uint16_t version = 1;
  uint16_t reply_lane = 0;  // lane + 1 the connector receives on (0: none, use reply_tag)
  int32_t service = 0;
  int32_t reply_tag = 0;  // the connector's incoming tag; the reply comes on it
  uint64_t nonce = 0;
};
struct ConnectReply {
  static constexpr uint32_t kMagic = 0x524d4243;  // "CBMR"
  uint32_t magic = kMagic;
  int32_t status = 0;  // 0 accepted, 1 no listener on that service, 2 bad request
  int32_t tag = 0;     // the listener end's incoming tag
  int32_t lane = 0;    // lane + 1 the listener end receives on (0: none)
  uint64_t nonce = 0;
};
struct CloseNotice {
  static constexpr uint32_t kMagic = 0x4e4d4243;  // "CBMN"
  uint32_t magic = kMagic;
  int32_t tag = 0;  // the receiver's incoming tag
  uint64_t sent = 0;
};

}  // namespace commbench::mpi
