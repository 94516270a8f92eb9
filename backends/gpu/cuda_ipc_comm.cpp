#include "gpu/cuda_ipc_comm.hpp"

#include <cstring>
#include <string>

#include "comm/errors.hpp"
#include "comm/little_endian.hpp"

namespace commbench::gpu {

namespace {

constexpr uint32_t kMagic = 0x43504943;  // "CIPC" in little-endian byte order
constexpr uint8_t kData = 1, kAck = 2;
constexpr size_t kHead = 12, kFrame = 16, kRegion = 64 + 4 * 8;

void put_head(std::vector<std::byte>& out, uint8_t type, uint32_t frames) {
  out.assign(kHead, std::byte{0});
  le::store<uint32_t>(out.data(), kMagic);
  out[4] = std::byte{type};
  le::store<uint32_t>(out.data() + 8, frames);
}

// One device frame's region, as the sender describes it.
void put_region(std::vector<std::byte>& out, const IpcRegion& r) {
  size_t at = out.size();
  out.resize(at + kRegion);
  std::memcpy(out.data() + at, r.handle.bytes.data(), 64);
  le::store<uint64_t>(out.data() + at + 64, r.base);
  le::store<uint64_t>(out.data() + at + 72, r.size);
  le::store<uint64_t>(out.data() + at + 80, r.id);
  le::store<uint64_t>(out.data() + at + 88, r.offset);
}

IpcRegion get_region(const std::byte* p) {
  IpcRegion r;
  std::memcpy(r.handle.bytes.data(), p, 64);
  r.base = le::load<uint64_t>(p + 64);
  r.size = le::load<uint64_t>(p + 72);
  r.id = le::load<uint64_t>(p + 80);
  r.offset = le::load<uint64_t>(p + 88);
  return r;
}

}  // namespace

CudaIpcComm::CudaIpcComm(std::unique_ptr<Comm> inner, DeviceOps& ops, EventLoop& loop,
                         CudaIpcOptions options)
    : CommDecorator(std::move(inner)),
      ops_(ops),
      loop_(loop),
      opt_(options),
      write_mutex_(loop),
      read_mutex_(loop),
      inner_read_mutex_(loop),
      exports_(ops),
      imports_(ops) {
  put_head(ack_header_, kAck, 0);
  ack_ = Message({Buffer{ack_header_.data(), ack_header_.size(), MemoryKind::host}});
}

CudaIpcComm::~CudaIpcComm() {
  // A read that failed half-way may leave a copy in flight out of a peer's mapping.
  ops_.drain_lanes();
}

void CudaIpcComm::file(Message& m) {
  if (m.frames.empty() || m.frames[0].size < kHead ||
      le::load<uint32_t>(m.frames[0].bytes()) != kMagic)
    throw ProtocolError("cuda-ipc: message without its header (is the peer using cuda-ipc?)");
  auto type = static_cast<uint8_t>(m.frames[0].bytes()[4]);
  if (type == kAck) {
    ++acks_;
  } else if (type == kData) {
    data_.push_back(std::move(m));
    m = Message{};
    if (!spare_.empty()) {  // the next inner read reuses a finished message's storage
      m = std::move(spare_.back());
      spare_.pop_back();
    }
  } else {
    throw ProtocolError("cuda-ipc: unknown message type " + std::to_string(type));
  }
}

template <typename Ready>
Task<void> CudaIpcComm::receive_until(Ready ready, CancelToken token) {
  while (!ready()) {
    // One inner read at a time; whoever holds it files what comes for the others too.
    auto guard = co_await inner_read_mutex_.lock();
    if (ready()) break;
    co_await inner_->read(inbox_, token);
    file(inbox_);
  }
}

Task<void> CudaIpcComm::write(const Message& msg, CancelToken token) {
  // Started now, as every comm's write is (comm.hpp): writes go out in call order.
  Task<void> t = write_message(msg, token);
  t.start();
  return t;
}

Task<void> CudaIpcComm::write_message(const Message& msg, CancelToken token) {
  auto guard = co_await write_mutex_.lock();
  if (msg.frames.size() > opt_.limits.max_frames)
    throw std::invalid_argument("cuda-ipc: message has more frames than the limit");
  put_head(header_, kData, static_cast<uint32_t>(msg.frames.size()));
  Message& out = out_;
  out.frames.clear();
  out.frames.push_back({});
  bool device = false;
  for (const auto& f : msg.frames) {
    size_t at = header_.size();
    header_.resize(at + kFrame);
    header_[at] = std::byte{static_cast<uint8_t>(f.kind)};
    le::store<uint64_t>(header_.data() + at + 8, f.size);
    if (f.kind == MemoryKind::host) {
      out.frames.push_back(f);
    } else {
      put_region(header_, exports_.describe(f.data));
      device = true;
    }
  }
  out.frames[0] = Buffer{header_.data(), header_.size(), MemoryKind::host};
  // The peer copies on its own stream, which cannot wait for our default stream: the
  // caller's work there (a cudaMemcpy filling the buffer) must be complete first.
  if (device) ops_.synchronize_default();
  co_await inner_->write(out, token);
  // The peer's copy out of our buffers is complete once it acknowledges.
  co_await receive_until([this] { return acks_ > 0; }, token);
  --acks_;
}

Task<void> CudaIpcComm::read(Message& into, CancelToken token) {
  auto guard = co_await read_mutex_.lock();
  co_await receive_until([this] { return !data_.empty(); }, token);
  Message m = std::move(data_.front());
  data_.pop_front();
  const Buffer& h = m.frames[0];
  const std::byte* p = h.bytes();
  const std::byte* end = p + h.size;
  uint32_t count = le::load<uint32_t>(p + 8);
  if (count > opt_.limits.max_frames)
    throw ProtocolError("cuda-ipc: " + std::to_string(count) + " frames exceed the limit");
  p += kHead;
  into.prepare_frames(count);
  bool ordered = false;
  size_t host_next = 1;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (end - p < static_cast<ptrdiff_t>(kFrame)) throw ProtocolError("cuda-ipc: short header");
    auto kind_byte = static_cast<uint8_t>(p[0]);
    uint64_t size = le::load<uint64_t>(p + 8);
    p += kFrame;
    if (kind_byte >= kMemoryKindCount) throw ProtocolError("cuda-ipc: unknown memory kind");
    if (size > opt_.limits.max_frame_bytes || (total += size) > opt_.limits.max_message_bytes)
      throw ProtocolError("cuda-ipc: frame of " + std::to_string(size) + " bytes over the limit");
    auto kind = static_cast<MemoryKind>(kind_byte);
    MemoryKind as = opt_.deliver.value_or(kind);
    const void* src = nullptr;
    if (kind == MemoryKind::host) {
      if (host_next >= m.frames.size() || m.frames[host_next].size != size)
        throw ProtocolError("cuda-ipc: host frames do not match the header");
      src = m.frames[host_next++].data;
    } else {
      if (end - p < static_cast<ptrdiff_t>(kRegion)) throw ProtocolError("cuda-ipc: short header");
      src = imports_.map(0, get_region(p), size);
      p += kRegion;
    }
    Buffer& dst = into.prepare_frame(i, size, as);
    if (size == 0) continue;
    if (as == MemoryKind::host && kind == MemoryKind::host) {
      std::memcpy(dst.data, src, size);
      continue;
    }
    if (!ordered) {  // after the caller's default-stream work on `into`
      ops_.order_after_default(kLane);
      ordered = true;
    }
    ops_.copy_async(dst.data, src, size, kLane);
  }
  if (p != end || host_next != m.frames.size())
    throw ProtocolError("cuda-ipc: the header does not describe the message");
  // Cooperative: the inner comm's progress runs meanwhile. `m` keeps host sources alive.
  while (!ops_.lane_idle(kLane)) co_await loop_.yield();
  spare_.push_back(std::move(m));
  co_await inner_->write(ack_, token);
}

}  // namespace commbench::gpu
