#include "mpi/mpi_context.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "comm/errors.hpp"
#include "steering/library_steering.hpp"
#include "mpi/mpi_comm.hpp"
#include "mpi/mpi_wire.hpp"

namespace commbench::mpi {

namespace {

std::shared_ptr<Context>* g_context = nullptr;  // immortal once created (see header)

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void ensure_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) throw CommError("mpi backend: MPI is already finalized");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Unit tests and tools without a harness: we initialize, and finalize at exit.
    // Steered like a benchmark (steering/library_steering.hpp), so these listen on no
    // wildcard address either.
    steer_libraries("");
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(&finalize_at_exit);
  }
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_FUNNELED)
    throw CommError("mpi backend: MPI was initialized with thread level " + std::to_string(level) +
                    "; the event loop needs MPI_THREAD_FUNNELED or better (use MPI_Init_thread)");
}

}  // namespace

std::shared_ptr<Context> Context::acquire(PairMethod method, bool method_given) {
  if (g_context) {
    if (method_given && (*g_context)->pair_method() != method)
      throw std::invalid_argument(std::string("pair_comms is fixed per process: already ") +
                                  to_string((*g_context)->pair_method()));
    return *g_context;
  }
  ensure_mpi();
  g_context = new std::shared_ptr<Context>(new Context(method));
  // MPI_Finalize deletes MPI_COMM_SELF's attributes before anything else (MPI 4.0,
  // 11.2.4): the standard hook for a library to free what it built on MPI. Without it
  // the duplicated communicators outlived MPI and valgrind counted ~1.3 KB lost per rank.
  static int key = MPI_KEYVAL_INVALID;
  auto on_finalize = [](MPI_Comm, int, void*, void*) -> int {
    if (g_context) (*g_context)->release_communicators();
    MPI_Comm_free_keyval(&key);
    return MPI_SUCCESS;
  };
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &key, nullptr) == MPI_SUCCESS)
    MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
  return *g_context;
}

void Context::release_communicators() noexcept {
  // Control messages that arrived after the last engine stopped listening (a peer's
  // last close notices): received here, or MPICH's UCX layer warns about each unmatched
  // message as it shuts down ("unexpected tag-receive descriptor ... was not matched",
  // once per rank in every run with two mpi backends). They are small, hence eager:
  // receiving one cannot wait on the peer.
  if (ctl_ != MPI_COMM_NULL) {
    discard_arrived(MPI_ANY_SOURCE, MPI_ANY_TAG, ctl_);
    MPI_Comm_free(&ctl_);
  }
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

Context::Context(PairMethod method) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  void* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  tag_limit_ = flag ? std::min(*static_cast<int*>(ub), 1 << 24) : 32767;
  double t0 = MPI_Wtime();
  MPI_Comm_dup(MPI_COMM_WORLD, &ctl_);
  pairs_ = build_pair_comms(MPI_COMM_WORLD, method);
  lanes_.assign(kLanes, MPI_COMM_NULL);
  for (MPI_Comm& c : lanes_) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  lanes_taken_.assign(static_cast<size_t>(size_), 0);
  stats_.setup_s = MPI_Wtime() - t0;
  // Errors come back as return codes: a truncated or failed request must become a
  // CommError on one connection, not abort the whole job.
  MPI_Comm_set_errhandler(ctl_, MPI_ERRORS_RETURN);
  for (MPI_Comm c : pairs_.by_peer)
    if (c != MPI_COMM_NULL) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  for (MPI_Comm c : lanes_) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
}

// --- tags and channels -------------------------------------------------------------------

int Context::alloc_tag() {
  int tag;
  if (!free_tags_.empty()) {
    tag = free_tags_.back();
    free_tags_.pop_back();
  } else {
    if (next_tag_ > tag_limit_)
      throw CommError("mpi backend: out of tags (" + std::to_string(tag_limit_) +
                      " connections open at once)");
    tag = next_tag_++;
    ++stats_.tags_allocated;
  }
  ++stats_.tags_live;
  return tag;
}

void Context::leak_tag(int) {
  --stats_.tags_live;
}

void Context::free_tag(int tag) {
  free_tags_.push_back(tag);
  --stats_.tags_live;
}

int Context::alloc_lane(int peer_world) {
  uint32_t& taken = lanes_taken_[static_cast<size_t>(peer_world)];
  for (int l = 0; l < kLanes; ++l)
    if (!(taken & (1u << l))) {
      taken |= 1u << l;
      ++stats_.lanes_live;
      return l;
    }
  return -1;
}

void Context::leak_lane(int lane) {
  if (lane >= 0) --stats_.lanes_live;  // stays taken: a late accept may still send on it
}

void Context::free_lane(int peer_world, int lane) {
  if (lane < 0) return;
  lanes_taken_[static_cast<size_t>(peer_world)] &= ~(1u << lane);
  --stats_.lanes_live;
}

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
  send_control(&n, sizeof n, ch->peer_world, kTagNotice);
  zombies_.push_back(ch);
  maybe_retire(ch);
}

void Context::maybe_retire(const std::shared_ptr<Channel>& ch) {
  if (!ch->local_closed || !ch->exhausted() || ch->graves > 0) return;
  auto it = channels_.find(ch->in_tag);
  if (it == channels_.end() || it->second != ch) return;  // already retired
  channels_.erase(it);
  free_tag(ch->in_tag);
  free_lane(ch->peer_world, ch->in.lane);
  ++stats_.channels_retired;
  zombies_.erase(std::remove(zombies_.begin(), zombies_.end(), ch), zombies_.end());
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

// --- requests nobody waits for -----------------------------------------------------------

void Context::bury(MPI_Request req, Channel* ch, std::unique_ptr<std::byte[]> keep) {
  std::shared_ptr<Channel> owner;
  if (ch) {
    owner = ch->shared_from_this();
    ++ch->graves;
  }
  graves_.push_back(Grave{req, std::move(owner), std::move(keep)});
  stats_.graves = graves_.size();
}

void Context::keep_while_graves(std::unique_ptr<std::byte[]> buf) {
  if (graves_.empty()) return;  // every request that could read it has finished
  kept_.push_back(std::move(buf));
  stats_.kept_buffers = kept_.size();
}

void Context::send_control(const void* data, size_t bytes, int dest, int tag) {
  auto buf = std::make_unique<std::byte[]>(bytes);
  std::memcpy(buf.get(), data, bytes);
  MPI_Request r;
  int rc = MPI_Isend(buf.get(), static_cast<int>(bytes), MPI_BYTE, dest, tag, ctl_, &r);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, "control send");
  bury(r, nullptr, std::move(buf));
}

// --- control receives ----------------------------------------------------------------------

void Context::engine_added() {
  if (engines_++ == 0) post_control_receives();
}

void Context::engine_removed() {
  if (--engines_ == 0) cancel_control_receives();
}

void Context::post_control_receives() {
  MPI_Irecv(connect_buf_, sizeof connect_buf_, MPI_BYTE, MPI_ANY_SOURCE, kTagConnect, ctl_,
            &connect_req_);
  MPI_Irecv(notice_buf_, sizeof notice_buf_, MPI_BYTE, MPI_ANY_SOURCE, kTagNotice, ctl_,
            &notice_req_);
}

void Context::cancel_control_receives() {
  // A receive that matched before the cancel took effect still carries a message.
  MPI_Status st;
  int cancelled = 0;
  MPI_Cancel(&connect_req_);
  MPI_Wait(&connect_req_, &st);
  MPI_Test_cancelled(&st, &cancelled);
  if (!cancelled) on_connect_request(st);
  MPI_Cancel(&notice_req_);
  MPI_Wait(&notice_req_, &st);
  MPI_Test_cancelled(&st, &cancelled);
  if (!cancelled) on_notice(st);
}

void Context::on_connect_request(const MPI_Status& st) {
  int src = st.MPI_SOURCE;
  ConnectRequest req;
  int bytes = 0;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  ConnectReply rep;
  if (bytes != static_cast<int>(sizeof req)) {
    rep.status = 2;
    std::memcpy(&req, connect_buf_, std::min<size_t>(sizeof req, static_cast<size_t>(bytes)));
  } else {
    std::memcpy(&req, connect_buf_, sizeof req);
  }
  rep.nonce = req.nonce;
  if (req.reply_tag < kFirstDataTag) return;  // nowhere to answer
  if (rep.status == 0 && (req.magic != ConnectRequest::kMagic || req.version != 1)) rep.status = 2;
  auto it = rep.status == 0 ? listeners_.find(req.service) : listeners_.end();
  if (rep.status == 0 && it == listeners_.end()) rep.status = 1;
  std::shared_ptr<Channel> ch;
  if (rep.status == 0 && req.reply_lane > kLanes) rep.status = 2;
  if (rep.status == 0) {
    int tag = alloc_tag();
    int lane = alloc_lane(src);
    ch = open_channel(src, tag, req.reply_tag, lane, static_cast<int>(req.reply_lane) - 1);
    rep.tag = tag;
    rep.lane = lane + 1;
  }
  send_control(&rep, sizeof rep, src, req.reply_tag);
  if (ch) it->second.on_accept(ch, "mpi://" + std::to_string(src));
}

void Context::on_notice(const MPI_Status& st) {
  CloseNotice n;
  int bytes = 0;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  if (bytes != static_cast<int>(sizeof n)) return;
  std::memcpy(&n, notice_buf_, sizeof n);
  if (n.magic != CloseNotice::kMagic) return;
  auto it = channels_.find(n.tag);
  if (it == channels_.end() || it->second->peer_world != st.MPI_SOURCE) return;
  std::shared_ptr<Channel> ch = it->second;
  if (ch->peer_closed) return;
  ch->peer_closed = true;
  ch->peer_sent = n.sent;
  if (ch->owner) ch->owner->on_peer_closed();
  maybe_retire(ch);
}

size_t Context::discard_arrived(int source, int tag, MPI_Comm comm) {
  size_t count = 0;
  for (;;) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    MPI_Improbe(source, tag, comm, &flag, &msg, &st);
    if (!flag) break;
    size_t n = received_bytes(st);
    if (scratch_.size() < n) scratch_.resize(n);
#if MPI_VERSION >= 4
    MPI_Mrecv_c(scratch_.data(), static_cast<MPI_Count>(n), MPI_BYTE, &msg, MPI_STATUS_IGNORE);
#else
    MPI_Mrecv(scratch_.data(), static_cast<int>(n), MPI_BYTE, &msg, MPI_STATUS_IGNORE);
#endif
    ++count;
  }
  if (scratch_.size() > (64u << 20)) std::vector<std::byte>().swap(scratch_);
  return count;
}

bool Context::drain(Channel& ch) {
  size_t n = discard_arrived(ch.in.rank, ch.receive_tag(), ch.in.comm);
  ch.received += n;
  return n > 0;
}

bool Context::poll() {
  bool did = false;
  int flag = 0;
  MPI_Status st;
  // Handle before re-posting: the handler reads the receive buffer. Several per call (a
  // burst of connects or close notices must not queue up behind one-per-poll), bounded so
  // a flood cannot starve the loop.
  for (int budget = 16; budget > 0 && connect_req_ != MPI_REQUEST_NULL; --budget) {
    flag = 0;
    if (MPI_Test(&connect_req_, &flag, &st) != MPI_SUCCESS || !flag) break;
    on_connect_request(st);
    if (engines_ > 0)
      MPI_Irecv(connect_buf_, sizeof connect_buf_, MPI_BYTE, MPI_ANY_SOURCE, kTagConnect, ctl_,
                &connect_req_);
    did = true;
  }
  for (int budget = 16; budget > 0 && notice_req_ != MPI_REQUEST_NULL; --budget) {
    flag = 0;
    if (MPI_Test(&notice_req_, &flag, &st) != MPI_SUCCESS || !flag) break;
    on_notice(st);
    if (engines_ > 0)
      MPI_Irecv(notice_buf_, sizeof notice_buf_, MPI_BYTE, MPI_ANY_SOURCE, kTagNotice, ctl_,
                &notice_req_);
    did = true;
  }
  for (size_t i = 0; i < graves_.size();) {
    flag = 0;
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
      maybe_retire(ch);
    }
  }
  stats_.graves = graves_.size();
  if (graves_.empty() && !kept_.empty()) {
    kept_.clear();
    stats_.kept_buffers = 0;
  }
  // Backwards: maybe_retire removes only the channel at hand from zombies_.
  for (size_t i = zombies_.size(); i-- > 0;) {
    std::shared_ptr<Channel> ch = zombies_[i];
    if (drain(*ch)) did = true;
    maybe_retire(ch);
  }
  return did;
}

}  // namespace commbench::mpi
