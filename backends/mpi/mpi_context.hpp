// Process-wide MPI state shared by every mpi:// backend instance: the communicators, the
// connections (channels) and listeners, and the parts that keep them apart and tidy:
//   mpi_session.hpp    MPI initialized, and freed from here before it finalizes
//   mpi_tag_table.hpp  incoming tags and lanes of connection ends
//   mpi_control.hpp    the connection protocol (connect, reply, close notice)
//   mpi_graveyard.hpp  requests, buffers and messages nobody waits for any more
// This file ties them together: a connection is opened and retired here.
//
// Isolation. Data travels on the pair communicators (pair_comms.hpp). Each connection
// end owns an *incoming tag*; the peer sends to it. A tag is reused only once both ends
// have closed and every message the peer sent on it has been received or drained. No
// per-connection MPI_Comm_dup: dup is collective and matched in call order on the pair
// communicator, which concurrent connections in opposite directions would have to
// serialize.
//
// Lanes: a few more duplicates of MPI_COMM_WORLD (kLanes). A connection end that holds
// lane L for its peer P is the only receiver of anything P sends it on lane L, so it may
// receive with MPI_ANY_TAG and the *tag* can say how the message is laid out: a small
// single-frame message then travels without the 20-byte frame header (mpi_wire.hpp).
// Both ends ask for a lane of their own in the handshake; an end that finds all lanes
// for that peer taken (more than kLanes connections with one peer) receives on its tag
// on the pair communicator, with every message framed. Lanes are freed like tags.
//
// The control receives are posted while an engine exists. Creating the context is
// collective over MPI_COMM_WORLD (the first mpi backend of a process must be created on
// every rank); it lives until the process exits.
#pragma once

#include <mpi.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mpi/mpi_channel.hpp"
#include "mpi/mpi_control.hpp"
#include "mpi/mpi_graveyard.hpp"
#include "mpi/mpi_stats.hpp"
#include "mpi/mpi_tag_table.hpp"
#include "mpi/pair_comms.hpp"

namespace commbench::mpi {

struct ListenerRec {
  // Called for each accepted connection with its channel (on the poller's turn).
  // `peer_id`: the identity the request claimed (Comm::peer_id).
  std::function<void(std::shared_ptr<Channel>, const std::string& peer, const std::string& peer_id)>
      on_accept;
  // The listener's backend's job token; requests with another are refused and counted.
  PeerAuth auth;
};

class Context final : private ControlHandler {
 public:
  static constexpr int kTagConnect = ControlChannel::kTagConnect;
  static constexpr int kFirstDataTag = 16;
  static constexpr int kLanes = 8;

  // The process's context; the first call is collective over MPI_COMM_WORLD. Checks the
  // MPI thread level (initializes MPI itself if nobody did, as in unit tests).
  // `max_tags` > 0 caps the connection ends (tags) a rank may hold (kMaxTagsKey); fixed
  // per process like the method.
  static std::shared_ptr<Context> acquire(PairMethod method, bool method_given, int max_tags = 0);
  // Null until the first acquire().
  static Context* current() noexcept;
  // Frees the communicators this context duplicated, then waits for every rank (see the
  // definition). Run by MPI_Finalize (mpi_session.hpp), after which the context must not
  // be used.
  void release_communicators() noexcept;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  MPI_Comm control() const noexcept { return control_.comm(); }
  PairMethod pair_method() const noexcept { return pairs_.method; }
  const ContextStats& stats() const noexcept { return stats_; }
  // Communicators this context created: the control duplicate, the pair communicators
  // (1 under `world`, n under create and create_group) and the lanes.
  size_t communicators() const noexcept { return 1 + pairs_.created + lanes_.size(); }
  int tag_capacity() const noexcept { return tags_.capacity(); }
  std::string tags_exhausted_message() const { return tags_.exhausted_message(); }
  void count_bare_received() noexcept { ++stats_.bare_received; }

  // Tags and lanes (mpi_tag_table.hpp).
  int alloc_tag() { return tags_.alloc(); }
  void leak_tag(int tag) { tags_.leak(tag); }
  void free_tag(int tag) { tags_.free(tag); }
  int alloc_lane(int peer_world) { return lanes_taken_.alloc(peer_world); }
  void leak_lane(int lane) { lanes_taken_.leak(lane); }
  void free_lane(int peer_world, int lane) { lanes_taken_.free(peer_world, lane); }

  // in_lane: ours (-1: none); out_lane: the peer's (-1: it receives on out_tag).
  std::shared_ptr<Channel> open_channel(int peer_world, int in_tag, int out_tag, int in_lane,
                                        int out_lane);
  // The comm is gone: sends a close notice and drains until the tag can be reused.
  void close_channel(const std::shared_ptr<Channel>& ch);

  // Listeners by service (0 = pick a free one); returns the service. Throws CommError.
  int add_listener(int service, ListenerRec rec);
  void remove_listener(int service) noexcept;

  // The graveyard (mpi_graveyard.hpp).
  void bury(MPI_Request req, Channel* ch, std::unique_ptr<std::byte[]> keep = {}) {
    graves_.bury(req, ch, std::move(keep));
  }
  void keep_while_graves(std::unique_ptr<std::byte[]> buf) {
    graves_.keep_while_graves(std::move(buf));
  }

  // Engines register while they exist: the control receives are posted while one does.
  void engine_added();
  void engine_removed();
  bool has_work() const noexcept { return engines_ > 0; }
  // Control messages, graveyard, draining. True if something happened.
  bool poll();

 private:
  Context(PairMethod method, int max_tags);
  void on_connect_request(int src, std::span<const std::byte> msg) override;
  void on_close_notice(int src, std::span<const std::byte> msg) override;
  bool drain(Channel& ch);
  void maybe_retire(const std::shared_ptr<Channel>& ch);

  int rank_ = 0, size_ = 1;
  ContextStats stats_;
  ControlChannel control_;
  PairComms pairs_;
  std::vector<MPI_Comm> lanes_;
  TagTable tags_;
  LaneTable lanes_taken_;
  Graveyard graves_{stats_};
  int engines_ = 0;
  std::unordered_map<int, std::shared_ptr<Channel>> channels_;  // by in_tag
  std::vector<std::shared_ptr<Channel>> zombies_;               // locally closed, draining
  std::vector<std::shared_ptr<Channel>> settled_;               // reused by poll()
  std::map<int, ListenerRec> listeners_;
  std::vector<std::byte> scratch_;  // landing buffer of discarded messages
};

}  // namespace commbench::mpi
