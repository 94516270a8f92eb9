#include "mpi/mpi_context.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "comm/errors.hpp"
#include "mpi/mpi_session.hpp"

namespace commbench::mpi {

namespace {

std::shared_ptr<Context>* g_context = nullptr;  // immortal once created (see header)

}  // namespace

std::shared_ptr<Context> Context::acquire(PairMethod method, bool method_given, int max_tags) {
  if (g_context) {
    if (method_given && (*g_context)->pair_method() != method)
      throw std::invalid_argument(std::string("pair_comms is fixed per process: already ") +
                                  to_string((*g_context)->pair_method()));
    if (max_tags > 0 && (*g_context)->tag_capacity() != max_tags)
      throw std::invalid_argument(std::string(kMaxTagsKey) + " is fixed per process: already " +
                                  std::to_string((*g_context)->tag_capacity()));
    return *g_context;
  }
  ensure_mpi(one_thread_level());
  g_context = new std::shared_ptr<Context>(new Context(method, max_tags));
  run_at_finalize([] {
    if (g_context) (*g_context)->release_communicators();
  });
  return *g_context;
}

void Context::release_communicators() noexcept {
  control_.release(scratch_);
  for (MPI_Comm& c : lanes_) MPI_Comm_free(&c);
  lanes_.clear();
  free_pair_comms(pairs_);
  // Last, and after every call above that drives progress: wait until every rank is here.
  // MPICH 4.0.2 (ch4:ucx) finalizes by flushing its endpoints, progressing only until its
  // own flushes end, then blocking in a PMI barrier. Over UCX's tcp transport a flush
  // sends a zero-length PUT and waits for the peer's ACK. A rank that makes MPI progress
  // while its peer is already finalizing (our engine's teardown, the receives above, an
  // application still running its loop) ACKs the peer's PUT early; the peer leaves for the
  // PMI barrier and never reads this rank's own PUT, so this rank's MPI_Finalize never
  // returns (bandwidth --backend mpi across vcluster hosts hung in ~1 of 3 runs;
  // mpi_finalize_skew always did with UCX_TLS=tcp). Upstream fixed it in 2023 (MPICH
  // PR 6596). With every rank here, the flushes start together and the rest of
  // MPI_Finalize before them makes no progress calls. Every rank runs this: the context
  // is created collectively over MPI_COMM_WORLD, and MPI_Finalize is collective too.
  MPI_Barrier(MPI_COMM_WORLD);
}

Context* Context::current() noexcept {
  return g_context ? g_context->get() : nullptr;
}

namespace {
int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
}  // namespace

// The last tag a connection end may use: MPI's bound, or fewer with max_tags.
static int last_tag(int max_tags) {
  int ub = tag_upper_bound();
  return max_tags > 0 ? std::min(ub, Context::kFirstDataTag + max_tags - 1) : ub;
}

Context::Context(PairMethod method, int max_tags)
    : rank_(world_rank()),
      size_(world_size()),
      tags_(kFirstDataTag, last_tag(max_tags), tag_upper_bound(), stats_),
      lanes_taken_(kLanes, static_cast<size_t>(size_), stats_) {
  static_assert(kLanes <= LaneTable::kMaxLanes);
  double t0 = MPI_Wtime();
  // Collective, in this order on every rank.
  control_.open(MPI_COMM_WORLD);
  pairs_ = build_pair_comms(MPI_COMM_WORLD, method);
  lanes_.assign(kLanes, MPI_COMM_NULL);
  for (MPI_Comm& c : lanes_) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  stats_.setup_s = MPI_Wtime() - t0;
  // Errors come back as return codes: a truncated or failed request must become a
  // CommError on one connection, not abort the whole job.
  for (MPI_Comm c : pairs_.by_peer)
    if (c != MPI_COMM_NULL) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  for (MPI_Comm c : lanes_) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
}

// --- channels ----------------------------------------------------------------------------

std::shared_ptr<Channel> Context::open_channel(int peer_world, int in_tag, int out_tag, int in_lane,
                                               int out_lane) {
  auto p = static_cast<size_t>(peer_world);
  auto route = [&](int lane) {
    if (lane >= 0 && lane < kLanes)
      return Route{lanes_[static_cast<size_t>(lane)], peer_world, lane};
    return Route{pairs_.by_peer[p], pairs_.peer_rank[p], -1};
  };
  auto ch = std::make_shared<Channel>(*this, peer_world, in_tag, out_tag, route(in_lane),
                                      route(out_lane));
  channels_[in_tag] = ch;
  return ch;
}

void Context::close_channel(const std::shared_ptr<Channel>& ch) {
  if (ch->local_closed) return;
  ch->local_closed = true;
  ch->owner = nullptr;
  CloseNotice n;
  n.tag = ch->out_tag;
  n.sent = ch->sent;
  control_.send(&n, sizeof n, ch->peer_world, ControlChannel::kTagNotice, graves_);
  zombies_.push_back(ch);
  maybe_retire(ch);
}

void Context::maybe_retire(const std::shared_ptr<Channel>& ch) {
  if (!ch->local_closed || !ch->exhausted() || ch->graves > 0) return;
  auto it = channels_.find(ch->in_tag);
  if (it == channels_.end() || it->second != ch) return;  // already retired
  channels_.erase(it);
  tags_.free(ch->in_tag);
  lanes_taken_.free(ch->peer_world, ch->in.lane);
  ++stats_.channels_retired;
  zombies_.erase(std::remove(zombies_.begin(), zombies_.end(), ch), zombies_.end());
}

bool Context::drain(Channel& ch) {
  size_t n = discard_arrived(ch.in.rank, ch.receive_tag(), ch.in.comm, scratch_);
  ch.received += n;
  return n > 0;
}

// --- listeners ---------------------------------------------------------------------------

int Context::add_listener(int service, ListenerRec rec) {
  if (service == 0) {
    service = 1;
    while (listeners_.count(service)) ++service;
  } else if (listeners_.count(service)) {
    throw CommError("cannot listen on mpi://" + std::to_string(rank_) + ":" +
                    std::to_string(service) + ": service already in use");
  }
  listeners_.emplace(service, std::move(rec));
  return service;
}

void Context::remove_listener(int service) noexcept {
  listeners_.erase(service);
}

// --- the control protocol's two ends here --------------------------------------------------

void Context::on_connect_request(int src, std::span<const std::byte> msg) {
  const ReadRequest read = decode_connect_request(msg);
  const ConnectRequest& req = read.req;
  ConnectReply rep;
  rep.nonce = req.nonce;
  if (req.reply_tag < kFirstDataTag) return;  // nowhere to answer
  if (!read.well_formed) rep.status = 2;
  auto it = rep.status == 0 ? listeners_.find(req.service) : listeners_.end();
  if (rep.status == 0 && it == listeners_.end()) rep.status = 1;
  std::shared_ptr<Channel> ch;
  if (rep.status == 0 && req.reply_lane > kLanes) rep.status = 2;
  // Another job's token (a stray in this MPI job: comm/peer_auth.hpp): refused, counted,
  // and the listener stays.
  if (rep.status == 0 && !same_token(std::span(req.token), it->second.auth.token)) {
    rep.status = 3;
    it->second.auth.count_rejected(Refusal::wrong_token);
  }
  // Out of tags: refused (status 4), the connector names the limit; throwing here would
  // end the whole rank from inside the poller.
  if (rep.status == 0 && tags_.full()) rep.status = 4;
  if (rep.status == 0) {
    const std::string& me = it->second.auth.self_id;
    rep.id_len = static_cast<uint16_t>(std::min(me.size(), kMaxPeerId));
    std::memcpy(rep.id, me.data(), rep.id_len);
    int tag = tags_.alloc();
    int lane = lanes_taken_.alloc(src);
    ch = open_channel(src, tag, req.reply_tag, lane, static_cast<int>(req.reply_lane) - 1);
    rep.tag = tag;
    rep.lane = lane + 1;
  }
  control_.send(&rep, sizeof rep, src, req.reply_tag, graves_);
  if (ch) it->second.on_accept(ch, "mpi://" + std::to_string(src), std::string(req.id, req.id_len));
}

void Context::on_close_notice(int src, std::span<const std::byte> msg) {
  const std::optional<CloseNotice> n = decode_close_notice(msg);
  if (!n) return;
  auto it = channels_.find(n->tag);
  if (it == channels_.end() || it->second->peer_world != src) return;
  std::shared_ptr<Channel> ch = it->second;
  if (ch->peer_closed) return;
  ch->peer_closed = true;
  ch->peer_sent = n->sent;
  if (ch->owner) ch->owner->fail_unmatchable_reads();
  maybe_retire(ch);
}

// --- polling -------------------------------------------------------------------------------

void Context::engine_added() {
  if (engines_++ == 0) control_.listen();
}

void Context::engine_removed() {
  if (--engines_ == 0) control_.stop_listening(*this);
}

bool Context::poll() {
  bool did = control_.poll(*this);
  if (graves_.reap(settled_)) did = true;
  for (const std::shared_ptr<Channel>& ch : settled_) maybe_retire(ch);
  settled_.clear();
  // Backwards: maybe_retire removes only the channel at hand from zombies_.
  for (size_t i = zombies_.size(); i-- > 0;) {
    std::shared_ptr<Channel> ch = zombies_[i];
    if (drain(*ch)) did = true;
    maybe_retire(ch);
  }
  return did;
}

}  // namespace commbench::mpi
