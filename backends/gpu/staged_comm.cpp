#include "gpu/staged_comm.hpp"

#include <cstring>
#include <string>

#include "comm/errors.hpp"

namespace commbench::gpu {

StagedComm::StagedComm(std::unique_ptr<Comm> inner, DeviceOps& ops, EventLoop& loop,
                       StagedOptions options)
    : CommDecorator(std::move(inner)),
      ops_(ops),
      loop_(loop),
      opt_(options),
      write_mutex_(loop),
      read_mutex_(loop) {
  if (opt_.chunk_bytes == 0) throw std::invalid_argument("staged: chunk size must be > 0");
  for (auto& m : rx_) m.set_host_allocator(&ops_.pinned_memory());
}

StagedComm::~StagedComm() {
  // A write or read that failed half-way may leave copies in flight into our buffers.
  ops_.drain_lanes();
}

Task<void> StagedComm::wait_lane(int lane) {
  // Cooperative: other coroutines (the inner comm's progress among them) run meanwhile.
  while (!ops_.lane_idle(lane)) co_await loop_.yield();
}

void StagedComm::deliver(void* dst, MemoryKind dst_kind, const void* src, size_t n, int lane) {
  if (n == 0) return;
  if (dst_kind == MemoryKind::host)
    std::memcpy(dst, src, n);
  else
    ops_.copy_async(dst, src, n, lane);
}

Task<void> StagedComm::write(const Message& msg, CancelToken token) {
  // Started now, as every comm's write is (comm.hpp): writes go out in call order.
  Task<void> t = write_message(msg, token);
  t.start();
  return t;
}

Task<void> StagedComm::write_message(const Message& msg, CancelToken token) {
  auto guard = co_await write_mutex_.lock();
  StagedLayout layout = plan_layout(msg, opt_.chunk_bytes);
  std::vector<Chunk> chunks = plan_chunks(layout);
  encode_layout(layout, descriptor_);
  if (layout.inline_device || !chunks.empty())
    for (auto& s : stage_) s.reserve(opt_.chunk_bytes, MemoryKind::host, &ops_.pinned_memory());

  // The ordering contract (backends/gpu/README.md): the lane copies below read the
  // device frames only after the work the caller issued on the default stream before
  // this call (the fill of a send buffer by cudaMemcpy may still be landing).
  size_t device_bytes = 0;
  for (const auto& f : msg.frames)
    if (f.kind != MemoryKind::host) device_bytes += f.size;
  // Small inline messages: blocking copies on the default stream (StagedOptions).
  const bool sync_copy = layout.inline_device && device_bytes <= opt_.sync_copy_max;
  if (device_bytes > 0 && !sync_copy) {
    ops_.order_after_default(kSendLane);
    if (chunks.size() > 1) ops_.order_after_default(kSendLane + 1);
  }

  Message head;
  head.frames.reserve(1 + head_payload_frames(layout));
  head.frames.push_back(Buffer{descriptor_.data(), descriptor_.size(), MemoryKind::host});
  size_t staged = 0;
  for (const auto& f : msg.frames) {
    if (f.kind == MemoryKind::host) {
      head.frames.push_back(f);
    } else if (layout.inline_device) {
      auto* dst = static_cast<std::byte*>(stage_[0].data()) + staged;
      if (f.size == 0) {
      } else if (sync_copy) {
        ops_.copy(dst, f.data, f.size);  // device to pinned host: returns complete
      } else {
        ops_.copy_async(dst, f.data, f.size, kSendLane);
      }
      head.frames.push_back(Buffer{dst, f.size, MemoryKind::host});
      staged += f.size;
    }
  }
  auto source = [&](const Chunk& c) { return msg.frames[c.frame].bytes() + c.offset; };
  if (layout.inline_device) {
    if (!sync_copy) co_await wait_lane(kSendLane);
  } else if (!chunks.empty()) {
    // The first chunk's copy overlaps the head's transfer.
    ops_.copy_async(stage_[0].data(), source(chunks[0]), chunks[0].bytes, kSendLane);
  }
  co_await inner_->write(head, token);

  for (size_t k = 0; k < chunks.size(); ++k) {
    int slot = static_cast<int>(k % 2);
    co_await wait_lane(kSendLane + slot);
    if (k + 1 < chunks.size()) {
      // stage_[1 - slot] was last sent by chunk k-1, whose write has returned.
      int next = 1 - slot;
      ops_.copy_async(stage_[next].data(), source(chunks[k + 1]), chunks[k + 1].bytes,
                      kSendLane + next);
    }
    Message piece({Buffer{stage_[slot].data(), chunks[k].bytes, MemoryKind::host}});
    co_await inner_->write(piece, token);
  }
}

Task<void> StagedComm::read(Message& into, CancelToken token) {
  auto guard = co_await read_mutex_.lock();
  const bool stream = opt_.stream_ordered_reads;
  Message& head = rx_[0];
  // rx_[0] may still feed a copy from the last read: a chunk's, or, where reads do not
  // wait for their copies (stream-ordered), the head frames' on the default stream.
  co_await wait_lane(kRecvLane);
  if (stream) co_await wait_lane(kDefaultLane);
  co_await inner_->read(head, token);
  if (head.frames.empty()) throw ProtocolError("staged: message without descriptor");
  const Buffer& d = head.frames[0];
  StagedLayout layout = decode_layout({d.bytes(), d.size}, opt_.limits);
  if (head.frames.size() != 1 + head_payload_frames(layout))
    throw ProtocolError("staged: head has " + std::to_string(head.frames.size() - 1) +
                        " payload frames, descriptor says " +
                        std::to_string(head_payload_frames(layout)));

  // The ordering contract: copies into device frames of `into` (whose storage is reused)
  // wait for the work the caller issued on the default stream before, which may still
  // read the last message there. Head frames and even chunks use kRecvLane, odd chunks
  // the next lane.
  std::vector<Chunk> chunks = plan_chunks(layout);
  bool head_to_device = false, chunks_to_device = false;
  size_t to_device = 0;
  for (const FrameInfo& f : layout.frames) {
    if (opt_.deliver.value_or(f.kind) == MemoryKind::host || f.size == 0) continue;
    to_device += f.size;
    if (f.kind == MemoryKind::host || layout.inline_device)
      head_to_device = true;
    else
      chunks_to_device = true;
  }
  // Head frames reach device frames by one of three ways, each after the caller's
  // default-stream work:
  // - stream-ordered reads: copies on the default stream itself (kDefaultLane), in order
  //   both ways by construction and not waited for;
  // - small inline messages (StagedOptions::sync_copy_max): blocking copies on the
  //   default stream, which return with the bytes landed (the source is pinned);
  // - else copies on kRecvLane ordered after the default stream, waited for below.
  const bool sync_copy = !stream && chunks.empty() && to_device <= opt_.sync_copy_max;
  const int head_lane = stream ? kDefaultLane : kRecvLane;
  if ((head_to_device && !stream && !sync_copy) || chunks_to_device)
    ops_.order_after_default(kRecvLane);
  if (chunks_to_device && chunks.size() > 1) ops_.order_after_default(kRecvLane + 1);

  into.prepare_frames(layout.frames.size());
  size_t h = 1;
  for (size_t i = 0; i < layout.frames.size(); ++i) {
    const FrameInfo& f = layout.frames[i];
    MemoryKind kind = opt_.deliver.value_or(f.kind);
    Buffer& dst = into.prepare_frame(i, f.size, kind);
    if (f.kind != MemoryKind::host && !layout.inline_device) continue;
    const Buffer& src = head.frames[h++];
    if (src.size != f.size) throw ProtocolError("staged: head frame size mismatch");
    if (sync_copy && kind != MemoryKind::host && f.size > 0)
      ops_.copy(dst.data, src.data, f.size);
    else
      deliver(dst.data, kind, src.data, f.size, head_lane);
  }

  if (!chunks.empty()) co_await wait_lane(head_lane);  // rx_[0] is reused for chunk 0
  for (size_t k = 0; k < chunks.size(); ++k) {
    int slot = static_cast<int>(k % 2);
    Message& piece = rx_[slot];
    co_await wait_lane(kRecvLane + slot);  // its copy from chunk k-2 is done
    co_await inner_->read(piece, token);
    const Chunk& c = chunks[k];
    if (piece.frames.size() != 1 || piece.frames[0].size != c.bytes)
      throw ProtocolError("staged: chunk " + std::to_string(k) + " has the wrong shape");
    const Buffer& dst = into.frames[c.frame];
    deliver(dst.bytes() + c.offset, dst.kind, piece.frames[0].data, c.bytes, kRecvLane + slot);
  }
  if (stream) {
    // Done in stream order: the default stream's later work waits for the chunk copies
    // on the device; the next read waits for them before it reuses rx_.
    if (chunks_to_device) ops_.order_default_after(kRecvLane);
    if (chunks_to_device && chunks.size() > 1) ops_.order_default_after(kRecvLane + 1);
    co_return;
  }
  co_await wait_lane(kRecvLane);
  co_await wait_lane(kRecvLane + 1);
}

}  // namespace commbench::gpu
