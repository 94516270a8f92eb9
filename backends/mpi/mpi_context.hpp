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

// One end of one connection.
struct Channel : std::enable_shared_from_this<Channel> {
  Context& ctx;
  int peer_world;  // the peer's rank in MPI_COMM_WORLD
  MPI_Comm comm;   // the data communicator shared with the peer
  int peer;        // the peer's rank in `comm`
  int in_tag;      // we receive on it (ours, from the free list)
  int out_tag;     // we send to it (the peer's in_tag)
  uint64_t sent = 0;       // MPI messages we posted to out_tag
  uint64_t received = 0;   // MPI messages we received on in_tag
  uint64_t peer_sent = 0;  // from the peer's close notice
  bool peer_closed = false;
  bool local_closed = false;
  int graves = 0;             // cancelled receives on in_tag not yet completed
  MpiComm* owner = nullptr;   // the live comm, told when the peer closes

  Channel(Context& c, int pw, MPI_Comm cm, int p, int in, int out)
      : ctx(c), peer_world(pw), comm(cm), peer(p), in_tag(in), out_tag(out) {}
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
  uint64_t channels_retired = 0;
  uint64_t graves = 0;
  double setup_s = 0;  // wall time of the collective start-up (pair comms)
};

class Context {
 public:
  static constexpr int kTagConnect = 1;
  static constexpr int kTagNotice = 2;
  static constexpr int kFirstDataTag = 16;

  // The process's context; the first call is collective over MPI_COMM_WORLD. Checks the
  // MPI thread level (initializes MPI itself if nobody did, as in unit tests).
  static std::shared_ptr<Context> acquire(PairMethod method, bool method_given);
  // Null until the first acquire().
  static Context* current() noexcept;
  // Frees the communicators this context duplicated. Run by MPI_Finalize (through an
  // attribute on MPI_COMM_SELF), after which the context must not be used.
  void release_communicators() noexcept;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  MPI_Comm control() const noexcept { return ctl_; }
  PairMethod pair_method() const noexcept { return pairs_.method; }
  const ContextStats& stats() const noexcept { return stats_; }

  // Tags and channels.
  int alloc_tag();
  void leak_tag(int tag);  // a connect that timed out: its reply may still come
  void free_tag(int tag);
  std::shared_ptr<Channel> open_channel(int peer_world, int in_tag, int out_tag);
  // The comm is gone: sends a close notice and drains until the tag can be reused.
  void close_channel(const std::shared_ptr<Channel>& ch);

  // Listeners by service (0 = pick a free one); returns the service. Throws CommError.
  int add_listener(int service, ListenerRec rec);
  void remove_listener(int service) noexcept;

  // A request nobody waits for any more (cancelled, or a fire-and-forget send): tested
  // until it completes, keeping `keep` alive. A receive on `ch` is counted if it got data.
  void bury(MPI_Request req, Channel* ch, std::unique_ptr<std::byte[]> keep = {});
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
  bool drain(Channel& ch);
  void maybe_retire(const std::shared_ptr<Channel>& ch);

  int rank_ = 0, size_ = 1;
  int tag_limit_ = 0;
  MPI_Comm ctl_ = MPI_COMM_NULL;
  PairComms pairs_;
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
  uint16_t reserved = 0;
  int32_t service = 0;
  int32_t reply_tag = 0;  // the connector's incoming tag; the reply comes on it
  uint64_t nonce = 0;
};
struct ConnectReply {
  static constexpr uint32_t kMagic = 0x524d4243;  // "CBMR"
  uint32_t magic = kMagic;
  int32_t status = 0;  // 0 accepted, 1 no listener on that service, 2 bad request
  int32_t tag = 0;     // the listener end's incoming tag
  int32_t reserved = 0;
  uint64_t nonce = 0;
};
struct CloseNotice {
  static constexpr uint32_t kMagic = 0x4e4d4243;  // "CBMN"
  uint32_t magic = kMagic;
  int32_t tag = 0;  // the receiver's incoming tag
  uint64_t sent = 0;
};

}  // namespace commbench::mpi
