#include "mpi/mpi_comm.hpp"

#include <algorithm>
#include <cstring>

#include "comm/errors.hpp"

namespace commbench::mpi {

MpiComm::MpiComm(std::shared_ptr<Engine> engine, std::shared_ptr<Channel> ch,
                 const WireOptions& wire, std::string local, std::string peer)
    : engine_(std::move(engine)),
      ch_(std::move(ch)),
      wire_(wire),
      local_(std::move(local)),
      peer_(std::move(peer)),
      read_lock_(engine_->loop()),
      in_capacity_(header_bytes(wire_.limits.max_frames) +
                   (wire_.shape == WireShape::packed ? wire_.eager : 0)) {
  ch_->owner = this;
}

MpiComm::~MpiComm() {
  abort();
}

// --- state -------------------------------------------------------------------------------

void MpiComm::not_writable() const {
  if (closed_) throw CommClosedError("write on closed comm to " + peer_);
  throw CommClosedError("connection to " + peer_ + " closed by peer");
}

void MpiComm::not_readable() const {
  if (closed_) throw CommClosedError("read on closed comm to " + peer_);
  throw CommClosedError("connection to " + peer_ + " closed by peer");
}

void MpiComm::protocol_error(const std::string& why) {
  abort();
  throw ProtocolError("mpi connection to " + peer_ + ": " + why);
}

void MpiComm::finish_local(bool cancel_sends) noexcept {
  closed_ = true;
  // No read can complete after a close; sends of a graceful close still reach the peer
  // (its drain takes them). Ops left running are no longer tracked by this comm.
  for (Op* op = ops_.head; op;) {
    Op* next = op->next;
    if (op->recv_channel || cancel_sends)
      engine_->abandon(*op);
    else
      op->unlink();
    op = next;
  }
  try {
    ch_->ctx.close_channel(ch_);
  } catch (...) {
    // The notice could not be posted (MPI gone): the peer learns nothing, we leak a tag.
  }
}

Task<void> MpiComm::close() {
  if (!closed_) finish_local(false);
  co_return;
}

void MpiComm::abort() noexcept {
  if (!closed_) finish_local(true);
}

void MpiComm::fail_unmatchable_reads() noexcept {
  if (!ch_->exhausted()) return;
  for (Op* op = ops_.head; op;) {
    Op* next = op->next;
    if (op->recv_channel) engine_->abandon(*op);
    op = next;
  }
}

// --- buffers and posting ---------------------------------------------------------------

MpiComm::Staging MpiComm::acquire(size_t bytes) {
  Staging s;
  if (!pool_.empty()) {
    s = std::move(pool_.back());
    pool_.pop_back();
  }
  if (s.capacity < bytes) {
    s.capacity = std::max<size_t>(bytes, 256);
    s.data = std::make_unique<std::byte[]>(s.capacity);
  }
  return s;
}

void MpiComm::release(Staging s) noexcept {
  if (pool_.size() < 64) pool_.push_back(std::move(s));
}

void MpiComm::post_send(Op& op, const void* p, size_t bytes, bool bare) {
  op.engine = engine_.get();
  const Route& r = ch_->out;
  int tag = r.on_lane() ? (bare ? kLaneTagBare : kLaneTagFramed) : ch_->out_tag;
  int rc = isend_bytes(p, bytes, r.rank, tag, r.comm, &op.req);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, "send");
  op.counted_send = true;
  ++ch_->sent;
  op.link(ops_);
}

void MpiComm::post_recv(Op& op, void* p, size_t bytes) {
  op.engine = engine_.get();
  op.recv_channel = ch_.get();
  int rc = irecv_bytes(p, bytes, ch_->in.rank, ch_->receive_tag(), ch_->in.comm, &op.req);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, "receive");
  op.link(ops_);
}

size_t MpiComm::post_separate(OpBatch& ops, size_t k, std::span<const Buffer> frames,
                              std::span<const FramePlace> places, bool send) {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (places[i].is_inline()) continue;
    std::byte* p = frames[i].bytes();
    for_each_chunk(frames[i].size, wire_.chunk, [&](size_t off, size_t piece) {
      if (send)
        post_send(ops[k++], p + off, piece);
      else
        post_recv(ops[k++], p + off, piece);
    });
  }
  return k;
}

std::span<FramePlace> MpiComm::places_for(std::vector<FramePlace>& scratch, size_t frames) {
  if (scratch.size() < frames) scratch.resize(frames);
  return {scratch.data(), frames};
}

// --- bare messages ---------------------------------------------------------------------

void MpiComm::read_bare(Message& into, size_t got) {
  try {
    unpack_bare_message(in_, got, wire_.limits, into);
  } catch (const ProtocolError& e) {
    protocol_error(e.what());
  }
  ch_->ctx.count_bare_received();
}

// --- write -------------------------------------------------------------------------------

Task<void> MpiComm::write(const Message& msg, CancelToken token) {
  // The usual small message: a bare send that MPI finishes within the call (its bytes
  // in the peer's shared-memory queue or the eager buffer) needs no frame, no Op and no
  // wait. Anything else, or anything unusual (closed, cancelled, over the limits: the
  // frame says which error), takes the coroutine, started now so that every write posts
  // its sends in call order (comm.hpp).
  if (!closed_ && !ch_->peer_closed && !token.cancelled() &&
      goes_bare(std::span<const Buffer>(msg.frames), wire_, ch_->out.on_lane()) &&
      within_limits(msg, wire_.limits)) {
    const Buffer& f = msg.frames[0];
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = isend_bytes(f.data, f.size, ch_->out.rank, kLaneTagBare, ch_->out.comm, &r);
    if (rc != MPI_SUCCESS) return send_failed(rc);
    ++ch_->sent;
    int flag = 0;
    rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && flag) {
      engine_->loop().retry_found_something();  // as a wait whose test succeeded
      return {};
    }
    Task<void> rest = finish_bare_send(r, rc, token);
    rest.start();
    return rest;
  }
  Task<void> t = write_message(msg, token);
  t.start();
  return t;
}

Task<void> MpiComm::send_failed(int rc) {
  throw_mpi_error(rc, "send");
  co_return;
}

Task<void> MpiComm::finish_bare_send(MPI_Request r, int test_rc, CancelToken token) {
  // As write_message's bare branch from its first test on: the request joins this comm's
  // ops (an abort buries it) and is waited for under the engine's policy.
  Op op;
  op.engine = engine_.get();
  op.counted_send = true;
  op.link(ops_);
  if (test_rc != MPI_SUCCESS) {
    abort();
    throw_mpi_error(test_rc, "request");
  }
  op.req = r;
  try {
    while (!co_await engine_->wait(op, token)) {
    }
  } catch (const std::exception&) {
    abort();
    throw;
  }
}

Task<void> MpiComm::write_message(const Message& msg, CancelToken token) {
  check_writable();
  // Shared by concurrent writes: valid only until this write first suspends (another write
  // may then resize it), which is why every use of `places` precedes the first co_await.
  const std::span<FramePlace> places = places_for(write_places_, msg.frames.size());
  const MessagePlan plan =
      plan_message(std::span<const Buffer>(msg.frames), wire_, ch_->out.on_lane(), places);
  if (plan.layout == Layout::bare) {
    // One host frame within the inline budget, on a lane: the tag says what it is, so
    // it goes as it is, straight from the caller's buffer (the limits still apply).
    check_limits(msg, wire_.limits);
    Op op;
    post_send(op, msg.frames[0].data, msg.frames[0].size, true);
    try {
      while (!co_await engine_->wait(op, token)) {
      }
    } catch (const std::exception&) {
      abort();
      throw;
    }
    co_return;
  }
  const size_t hb = plan.header_bytes;
  Staging s = acquire(hb + plan.inline_bytes);
  encode_header(msg, {s.data.get(), hb}, wire_.limits);  // ProtocolError: nothing sent yet

  OpBatch ops(plan.messages());
  size_t k = 0;
  try {
    // Everything is posted before the first suspension: concurrent writes cannot
    // interleave their MPI messages, so no write lock is needed.
    if (plan.layout == Layout::packed) {
      for (size_t i = 0; i < msg.frames.size(); ++i)
        if (places[i].is_inline() && msg.frames[i].size > 0)
          std::memcpy(s.data.get() + places[i].offset, msg.frames[i].data, msg.frames[i].size);
      post_send(ops[k++], s.data.get(), plan.first_bytes());
    } else {
      post_send(ops[k++], s.data.get(), kFixedHeaderBytes);
      post_send(ops[k++], s.data.get() + kFixedHeaderBytes, hb - kFixedHeaderBytes);
    }
    k = post_separate(ops, k, msg.frames, places, true);
    for (size_t i = 0; i < k; ++i)
      while (!co_await engine_->wait(ops[i], token)) {
      }
  } catch (const std::exception&) {
    // Part of the message may be on the wire (or still being read from `s` by MPI): the
    // connection is unusable. abort() buries the sends still outstanding; the staging
    // buffer goes with them, because a cancelled send may still read it.
    abort();
    ch_->ctx.keep_while_graves(std::move(s.data));
    throw;
  }
  release(std::move(s));
}

// --- read --------------------------------------------------------------------------------

Task<void> MpiComm::read(Message& into, CancelToken token) {
  check_readable();
  std::optional<AsyncMutex::Guard> guard;
  guard.emplace(co_await read_lock_.lock());
  check_readable();
  const bool packed = wire_.shape == WireShape::packed;
  // Reserved on every read: a bare message takes the block with it (read_bare).
  auto* in = static_cast<std::byte*>(in_.reserve(in_capacity_, MemoryKind::host));
  try {
    Op hop;
    post_recv(hop, in, packed ? in_capacity_ : kFixedHeaderBytes);
    while (!co_await engine_->wait(hop, token)) {
    }
    size_t got = received_bytes(hop.status);
    if (ch_->in.on_lane() && hop.status.MPI_TAG == kLaneTagBare) {
      read_bare(into, got);
      co_return;
    }
    uint32_t count = 0;
    try {
      count = decode_fixed_header({in, got}, wire_.limits);
    } catch (const ProtocolError& e) {
      protocol_error(e.what());
    }
    size_t hb = header_bytes(count);
    if (!packed) {
      if (got != kFixedHeaderBytes)
        protocol_error("header message of " + std::to_string(got) + " bytes");
      Op dop;
      post_recv(dop, in + kFixedHeaderBytes, hb - kFixedHeaderBytes);
      while (!co_await engine_->wait(dop, token)) {
      }
      if (received_bytes(dop.status) != hb - kFixedHeaderBytes)
        protocol_error("frame descriptors truncated");
    } else if (got < hb) {
      protocol_error("header truncated");
    }
    try {
      decode_frame_descriptors({in + kFixedHeaderBytes, hb - kFixedHeaderBytes}, count,
                               wire_.limits, frames_in_);
    } catch (const ProtocolError& e) {
      protocol_error(e.what());
    }
    const std::span<FramePlace> places = places_for(read_places_, count);
    const MessagePlan plan =
        plan_message(std::span<const FrameInfo>(frames_in_.data(), count), wire_, false, places);
    if (packed && got < plan.first_bytes()) protocol_error("inline frames truncated");
    if (packed && got > plan.first_bytes()) protocol_error("packed message has trailing bytes");
    into.prepare_frames(count);
    for (uint32_t i = 0; i < count; ++i) {
      const FrameInfo& fi = frames_in_[i];
      Buffer& f = into.prepare_frame(i, fi.size, fi.kind);
      if (places[i].is_inline() && fi.size > 0) std::memcpy(f.data, in + places[i].offset, fi.size);
    }
    if (plan.frame_messages == 0) co_return;
    OpBatch ops(plan.frame_messages);
    size_t k = post_separate(ops, 0, into.frames, places, false);
    guard.reset();  // this message's receives are posted: the next read may post its own
    for (size_t i = 0; i < k; ++i)
      while (!co_await engine_->wait(ops[i], token)) {
      }
  } catch (const OperationCancelled&) {
    abort();  // a partial message may have been consumed
    throw;
  }
}

}  // namespace commbench::mpi
