#include "ucx/ucx_comm.hpp"

#include <algorithm>
#include <cstring>

#include "comm/errors.hpp"
#include "comm/frame_header.hpp"
#include "ucx/ucx_lanes.hpp"

namespace commbench::ucx {

namespace {

// The first tag message of every message; also the receive staging size.
constexpr size_t kPacketBytes = 16 * 1024;
// Descriptors of up to (8 KiB - 12) / 8 = 1022 frames travel in the packet; beyond that
// the packet holds only the fixed header and the descriptors follow as a tag message.
constexpr size_t kMaxPackedHeaderBytes = 8 * 1024;
// Host frames up to this size are copied into the packet while it has room: below it a
// copy costs less than a second matched tag message; above it the frame goes in place.
constexpr size_t kMaxPackedFrameBytes = 8 * 1024;
// A close packet: shorter than any frame header, with its own magic.
constexpr uint32_t kCloseMagic = 0x43584243;  // "CBXC"
constexpr size_t kClosePacketBytes = 4;
const std::byte kClosePacket[kClosePacketBytes] = {std::byte{0x43}, std::byte{0x42},
                                                   std::byte{0x58}, std::byte{0x43}};

bool descriptors_packed(size_t frames) {
  return header_bytes(frames) <= kMaxPackedHeaderBytes;
}

// Whether a frame goes in the packet; `used` = bytes of the packet taken so far.
bool frame_packed(size_t& used, uint64_t size, MemoryKind kind) {
  if (kind != MemoryKind::host || size > kMaxPackedFrameBytes || used + size > kPacketBytes)
    return false;
  used += size;
  return true;
}

// Set in the tag of a bare message (tags from Worker::new_tag never reach it).
constexpr ucp_tag_t kBareTagBit = ucp_tag_t{1} << 63;

// A message's sends are few; more than this many out-of-line pieces spill to the heap.
constexpr size_t kInlineOps = 4;

}  // namespace

UcxComm::UcxComm(std::shared_ptr<Worker> data, std::shared_ptr<Worker> control,
                 std::shared_ptr<EndpointState> ep, uint64_t send_tag, uint64_t recv_tag,
                 std::string local, std::string peer, const CommLimits& limits)
    : worker_(std::move(data)),
      control_(std::move(control)),
      ep_(std::move(ep)),
      send_tag_(send_tag),
      recv_tag_(recv_tag),
      local_(std::move(local)),
      peer_(std::move(peer)),
      limits_(limits),
      read_lock_(worker_->loop()) {
  // The control worker watches the peer while the comm is open; the data worker is
  // progressed only while someone waits on it.
  control_->add_user();
}

UcxComm::~UcxComm() {
  abort();
}

std::vector<std::string> UcxComm::transports() const {
  return endpoint_transports(ep_->data);
}

void UcxComm::release_user() noexcept {
  if (user_) {
    user_ = false;
    control_->remove_user();
  }
}

void UcxComm::closed_error(const char* op) const {
  std::string why = closed_        ? "comm is closed"
                    : peer_closed_ ? "closed by peer"
                                   : status_message("connection to peer failed", ep_->error);
  throw CommClosedError(std::string("ucx ") + op + " on " + peer_ + ": " + why);
}

std::byte* UcxComm::take_packet() {
  if (free_packets_.empty()) {
    packets_.push_back(std::make_unique<std::byte[]>(kPacketBytes));
    return packets_.back().get();
  }
  std::byte* p = free_packets_.back();
  free_packets_.pop_back();
  return p;
}

void UcxComm::cancel_receive(void* self, void* request) {
  static_cast<UcxComm*>(self)->worker_->cancel(request);
}

void UcxComm::cancel_send(void* self, void*) {
  // A send cannot be withdrawn once posted; closing the endpoint completes it with an
  // error. Part of a message may be out: the comm is unusable, as with TCP.
  static_cast<UcxComm*>(self)->abort();
}

ucs_status_t UcxComm::post_send(const void* data, size_t size, Op& op, ucp_tag_t tag) {
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = &Op::on_send;
  p.user_data = &op;
  op.handoff = worker_->handoff();  // before posting: the callback may run at once
  void* r = ucp_tag_send_nbx(ep_->data, data, size, tag, &p);
  if (r == nullptr) {
    op.finish_now(UCS_OK);
    return UCS_OK;
  }
  if (UCS_PTR_IS_ERR(r)) {
    op.finish_now(UCS_PTR_STATUS(r));
    return op.status;
  }
  op.request = r;
  worker_->posted();
  return UCS_INPROGRESS;
}

bool UcxComm::goes_bare(const Message& msg) const noexcept {
  return msg.frames.size() == 1 && msg.frames[0].kind == MemoryKind::host &&
         msg.frames[0].size <= kMaxPackedFrameBytes;
}

void UcxComm::write_failed(ucs_status_t status, CancelToken token) {
  if (token.cancelled()) token.throw_cancelled("ucx write");
  if (!ep_->failed && !closed_) ep_->error = status;
  abort();
  throw CommClosedError("ucx write to " + peer_ + ": " + ucs_status_string(status));
}

void UcxComm::progress_after_send() {
  // A cooperative writer whose sends complete at once would never progress the worker,
  // and a dead peer would go unnoticed by a rank that only writes. After the send, not
  // before it: progressing first put a library call between the caller and its message
  // (results/layer-2026-11-30), and a send that waits progresses the worker anyway.
  if (worker_->policy() == Progress::cooperative) worker_->progress();
}

Task<void> UcxComm::write(const Message& msg, CancelToken token) {
  // Cooperative: the usual small message is sent within the call, without a frame, an Op
  // or a wait. FORCE_IMM_CMPL asks UCX to send it now or not at all, so no request, and no
  // callback into memory of ours, is ever left behind. "Not at all" (NO_RESOURCE) means
  // above the transport's inline (short) size or a full queue: one early-failing call,
  // then the coroutine sends it as before (128 B-2 KiB did not get slower:
  // results/ab-layer-floor). Anything else, or anything unusual (closed, cancelled, over the
  // limits: the frame says which error), takes the coroutine, started now so that every
  // write posts its sends in call order (comm.hpp). The other policies' waits need the
  // Op, so they always take the coroutine.
  if (worker_->policy() == Progress::cooperative && !closed() && !token.cancelled() &&
      goes_bare(msg) && within_limits(msg, limits_)) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    const Buffer& f = msg.frames[0];
    void* r = ucp_tag_send_nbx(ep_->data, f.data, f.size, send_tag_ | kBareTagBit, &p);
    if (r == nullptr) {
      progress_after_send();
      return {};
    }
    Task<void> rest;
    if (!UCS_PTR_IS_ERR(r))
      rest = finish_unowned_send(r, token);  // a UCX that ignored FORCE_IMM_CMPL
    else if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE)
      rest = send_failed(UCS_PTR_STATUS(r), token);
    if (rest.valid()) {
      rest.start();
      return rest;
    }
  }
  Task<void> t = write_message(msg, token);
  t.start();
  return t;
}

Task<void> UcxComm::send_failed(ucs_status_t status, CancelToken token) {
  write_failed(status, token);
  co_return;
}

Task<void> UcxComm::finish_unowned_send(void* request, CancelToken token) {
  // Posted without a callback: polled, as close() polls its close packet. Freed at the
  // end whatever happened (UCX finishes a released request itself). A close, an abort or
  // the token ends the wait as they end a waiting write.
  ++ep_->sends_in_flight;
  ucs_status_t s;
  while ((s = ucp_request_check_status(request)) == UCS_INPROGRESS && !closed() &&
         !token.cancelled()) {
    worker_->progress();
    co_await worker_->loop().yield();
  }
  --ep_->sends_in_flight;
  ucp_request_free(request);
  if (s == UCS_OK) co_return;
  if (s == UCS_INPROGRESS) {
    if (token.cancelled()) {
      abort();  // part of the message may be out, as cancel_send says
      token.throw_cancelled("ucx write");
    }
    closed_error("write");
  }
  write_failed(s, token);
}

Task<void> UcxComm::write_message(const Message& msg, CancelToken token) {
  if (closed()) closed_error("write");
  token.throw_if_cancelled("ucx write");
  if (goes_bare(msg)) {
    check_limits(msg, limits_);  // the limits hold for bare messages too
    Op op;
    const Buffer& f = msg.frames[0];
    ucs_status_t s = post_send(f.data, f.size, op, send_tag_ | kBareTagBit);
    if (s == UCS_OK) progress_after_send();
    if (s == UCS_INPROGRESS) {
      ++ep_->sends_in_flight;  // so that an abort meanwhile leaves `data` open (force_close)
      while (!co_await worker_->wait(op, token, send_hook())) {
      }
      --ep_->sends_in_flight;
      s = op.status;
    }
    if (s != UCS_OK) write_failed(s, token);
    co_return;
  }

  const size_t n = msg.frames.size();
  const bool packed_descriptors = descriptors_packed(n);
  std::byte* packet = take_packet();
  std::vector<std::byte> descriptors;  // only for messages of more than 1022 frames
  size_t used;
  if (packed_descriptors) {
    used = encode_header(msg, {packet, kPacketBytes}, limits_);
  } else {
    descriptors.resize(header_bytes(n));
    encode_header(msg, descriptors, limits_);
    std::memcpy(packet, descriptors.data(), kFixedHeaderBytes);
    used = kFixedHeaderBytes;
  }
  size_t out_of_line = packed_descriptors ? 0 : 1;
  for (const Buffer& f : msg.frames) {
    size_t before = used;
    if (packed_descriptors && frame_packed(used, f.size, f.kind)) {
      if (f.size > 0) std::memcpy(packet + before, f.data, f.size);
    } else {
      ++out_of_line;
    }
  }

  // Post everything without suspending (this is what keeps concurrent writes whole).
  Op inline_ops[kInlineOps];
  std::unique_ptr<Op[]> heap_ops;
  Op* ops = inline_ops;
  if (out_of_line + 1 > kInlineOps) {
    heap_ops = std::make_unique<Op[]>(out_of_line + 1);
    ops = heap_ops.get();
  }
  size_t posted = 0;
  ucs_status_t failure = UCS_OK;
  auto post = [&](const void* data, size_t size) {
    if (failure != UCS_OK && failure != UCS_INPROGRESS) return;
    ucs_status_t s = post_send(data, size, ops[posted++], send_tag_);
    if (s != UCS_OK && s != UCS_INPROGRESS) failure = s;
  };
  post(packet, used);
  if (!packed_descriptors) post(descriptors.data() + kFixedHeaderBytes, n * kFrameDescriptorBytes);
  if (out_of_line > 0) {
    size_t u = kFixedHeaderBytes + (packed_descriptors ? n * kFrameDescriptorBytes : 0);
    for (const Buffer& f : msg.frames)
      if (!(packed_descriptors && frame_packed(u, f.size, f.kind))) post(f.data, f.size);
  }
  if (ops[0].done) {  // the usual case for a small message: nothing to wait for
    give_packet(packet);
    packet = nullptr;
  }
  progress_after_send();

  ucs_status_t status = failure;
  for (size_t i = 0; i < posted; ++i) {
    if (!ops[i].done) {
      ++ep_->sends_in_flight;
      while (!co_await worker_->wait(ops[i], token, send_hook())) {
      }
      --ep_->sends_in_flight;
    } else if (ops[i].request) {
      // It finished while an earlier op's wait progressed the worker: no wait frees it.
      ucp_request_free(ops[i].request);
      ops[i].request = nullptr;
    }
    if (ops[i].status != UCS_OK && status == UCS_OK) status = ops[i].status;
  }
  if (packet) give_packet(packet);
  if (status != UCS_OK) write_failed(status, token);
}

bool UcxComm::post_receive(void* data, size_t capacity, Op& op, ucp_tag_t mask) {
  ucp_request_param_t p;
  // NO_IMM_CMPL: UCX 1.13 completes a receive that finds its message already queued
  // without filling recv_info (length 0), so every receive reports through the callback,
  // which then runs inside ucp_tag_recv_nbx and costs no suspension.
  p.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
  p.cb.recv = &Op::on_tag_recv;
  p.user_data = &op;
  op.handoff = worker_->handoff();
  void* r = ucp_tag_recv_nbx(worker_->handle(), data, capacity, recv_tag_, mask, &p);
  if (UCS_PTR_IS_ERR(r)) {
    if (UCS_PTR_STATUS(r) == UCS_ERR_MESSAGE_TRUNCATED) {
      abort();
      throw ProtocolError("ucx read from " + peer_ + ": message larger than announced");
    }
    throw CommClosedError(status_message("ucx receive", UCS_PTR_STATUS(r)));
  }
  if (op.done) {  // it was already here
    ucp_request_free(r);
    return false;
  }
  op.request = r;
  worker_->posted();
  // Nothing more comes from a failed or closed connection: only what is queued counts.
  if (ep_->failed || closed_) worker_->cancel(r);
  ep_->pending_recv = r;
  return true;
}

size_t UcxComm::received(Op& op, CancelToken token) {
  ep_->pending_recv = nullptr;
  if (op.status == UCS_OK) return op.length;
  if (op.status == UCS_ERR_CANCELED && token.cancelled()) {
    abort();  // part of a message may have been consumed
    token.throw_cancelled("ucx read");
  }
  if (op.status == UCS_ERR_MESSAGE_TRUNCATED) {
    abort();
    throw ProtocolError("ucx read from " + peer_ + ": message larger than announced");
  }
  if (op.status != UCS_ERR_CANCELED && !ep_->failed) ep_->error = op.status;
  closed_error("read");
}

Task<void> UcxComm::read(Message& into, CancelToken token) {
  auto guard = co_await read_lock_.lock();
  if (closed_ || peer_closed_) closed_error("read");
  auto* pk = static_cast<std::byte*>(packet_in_.reserve(kPacketBytes, MemoryKind::host));
  Op op;
  if (post_receive(pk, kPacketBytes, op, ~kBareTagBit)) {  // a bare message matches too
    while (!co_await worker_->wait(op, token, receive_hook())) {
    }
  }
  const size_t got = received(op, token);
  if (op.sender_tag & kBareTagBit) {
    try {
      unpack_bare_message(packet_in_, got, limits_, into);
    } catch (const ProtocolError&) {
      abort();
      throw;
    }
    co_return;
  }
  if (got == kClosePacketBytes && std::memcmp(pk, kClosePacket, kClosePacketBytes) == 0) {
    peer_closed_ = true;
    closed_error("read");
  }
  uint32_t count = 0;
  bool packed_descriptors = false;
  try {
    if (got < kFixedHeaderBytes) throw ProtocolError("ucx: packet shorter than a frame header");
    count = decode_fixed_header({pk, kFixedHeaderBytes}, limits_);
    packed_descriptors = descriptors_packed(count);
    size_t desc_bytes = size_t{count} * kFrameDescriptorBytes;
    if (packed_descriptors) {
      if (got < kFixedHeaderBytes + desc_bytes) throw ProtocolError("ucx: truncated frame header");
      decode_frame_descriptors({pk + kFixedHeaderBytes, desc_bytes}, count, limits_, frames_in_);
    } else {
      if (got != kFixedHeaderBytes) throw ProtocolError("ucx: unexpected bytes after header");
      descriptors_in_.resize(desc_bytes);
      Op dop;
      if (post_receive(descriptors_in_.data(), desc_bytes, dop, ~ucp_tag_t{0})) {
        while (!co_await worker_->wait(dop, token, receive_hook())) {
        }
      }
      if (received(dop, token) != desc_bytes)
        throw ProtocolError("ucx: truncated frame descriptors");
      decode_frame_descriptors(descriptors_in_, count, limits_, frames_in_);
    }
  } catch (const ProtocolError&) {
    abort();  // out of step with the peer: nothing after this can be trusted
    throw;
  }
  size_t used = packed_descriptors ? header_bytes(count) : kFixedHeaderBytes;
  {
    size_t expect = used;
    for (uint32_t i = 0; i < count; ++i)
      if (packed_descriptors) frame_packed(expect, frames_in_[i].size, frames_in_[i].kind);
    if (expect != got) {
      abort();
      throw ProtocolError("ucx read from " + peer_ + ": packet length does not match its header");
    }
  }
  into.prepare_frames(count);
  for (uint32_t i = 0; i < count; ++i) {
    Buffer& f = into.prepare_frame(i, frames_in_[i].size, frames_in_[i].kind);
    size_t before = used;
    if (packed_descriptors && frame_packed(used, f.size, f.kind)) {
      if (f.size > 0) std::memcpy(f.data, pk + before, f.size);
      continue;
    }
    Op fop;
    if (post_receive(f.data, f.size, fop, ~ucp_tag_t{0})) {
      while (!co_await worker_->wait(fop, token, receive_hook())) {
      }
    }
    if (received(fop, token) != f.size) {
      abort();
      throw ProtocolError("ucx read from " + peer_ + ": frame shorter than announced");
    }
  }
}

namespace {

// Progresses `owner` until UCP finishes request `r` (posted without a callback, so nothing
// points into a coroutine frame) or `deadline` (EventLoop::now_ns) passes; true if done.
Task<bool> finish_polled(void* r, Worker& owner, uint64_t deadline) {
  EventLoop& loop = owner.loop();
  uint64_t start = EventLoop::now_ns();
  while (ucp_request_check_status(r) == UCS_INPROGRESS) {
    uint64_t now = EventLoop::now_ns();
    if (now > deadline) break;
    owner.progress();
    if (now - start < 1'000'000)
      co_await loop.yield();
    else
      co_await loop.sleep_for(std::chrono::microseconds(100));
  }
  co_return ucp_request_check_status(r) != UCS_INPROGRESS;
}

// How long a graceful close waits for its peer: for the close packet to leave and the
// data endpoint to flush, then again for the connection endpoint's close.
constexpr uint64_t kCloseWaitNs = 2'000'000'000ull;

}  // namespace

Task<void> UcxComm::close() {
  if (closed_) co_return;
  const uint64_t deadline = EventLoop::now_ns() + kCloseWaitNs;
  if (ep_->data && !ep_->failed && !peer_closed_) {
    // The close packet is polled under the deadline, not awaited: a send completes only
    // once the transport has room for it, and on one host that room is the peer's
    // shared-memory FIFO, which every sender to that process shares and which frees slots
    // only as the peer progresses. A peer that has stopped progressing (gone on to MPI
    // collectives at the end of a run) held this close, and the rank, for ever: the
    // 40-rank merge hang. Unfinished at the deadline, the request is released to UCP
    // (its bytes are static), and the flush below waits for it within the same deadline.
    ucp_request_param_t p{};
    void* r = ucp_tag_send_nbx(ep_->data, kClosePacket, kClosePacketBytes, send_tag_, &p);
    if (r != nullptr && !UCS_PTR_IS_ERR(r)) {
      worker_->posted();
      co_await finish_polled(r, *worker_, deadline);
      ucp_request_free(r);  // now, or when UCP completes it
    }
  }
  closed_ = true;
  ep_->closing = true;
  if (ep_->pending_recv) worker_->cancel(ep_->pending_recv);
  // Flush the data endpoint (the close packet and all before it leave), then the
  // connection endpoint, whose closing tells the peer's error handler we are gone.
  // The requests are polled (no callback), so giving up after the deadline (a peer
  // that no longer answers) leaves nothing pointing into this frame.
  for (ucp_ep_h* e : {&ep_->data, &ep_->ep}) {
    if (!*e) continue;
    Worker& owner = e == &ep_->data ? *worker_ : *control_;
    ucp_request_param_t p{};
    if (e == &ep_->ep) {
      // The connection endpoint runs with peer error handling: UCX destroys such an
      // endpoint (and its socket) only when the connection breaks, so a flush close left
      // one ESTAB socket and its state behind per connection. FORCE tears it down now;
      // the peer's error handler sees the reset and closes its side.
      p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    }
    void* r = ucp_ep_close_nbx(*e, &p);
    *e = nullptr;
    endpoint_released();
    if (r == nullptr || UCS_PTR_IS_ERR(r)) continue;
    uint64_t until = e == &ep_->data ? deadline : EventLoop::now_ns() + kCloseWaitNs;
    if (co_await finish_polled(r, owner, until))
      ucp_request_free(r);
    else
      owner.adopt_close(r, ep_);
  }
  release_user();
}

void UcxComm::abort() noexcept {
  // Tell the peer we are gone, best effort, as a reset socket tells a TCP peer: UCX does
  // not report a force-closed endpoint to the other side, whose pending read otherwise
  // waited for its timeout (and, at shutdown, kept its comm and both workers alive: the
  // endpoint "leak" LSan used to report after a read timeout).
  if (!closed_ && !peer_closed_ && ep_->data && !ep_->failed) {
    ucp_request_param_t p{};
    void* r = ucp_tag_send_nbx(ep_->data, kClosePacket, kClosePacketBytes, send_tag_, &p);
    if (r != nullptr && !UCS_PTR_IS_ERR(r)) ucp_request_free(r);  // released when done
  }
  closed_ = true;
  ep_->closing = true;
  if (ep_->pending_recv) worker_->cancel(ep_->pending_recv);
  ep_->force_close();
  release_user();
}

}  // namespace commbench::ucx
