#include "fault/fault_comm.hpp"

#include <atomic>

#include "comm/errors.hpp"
#include "comm/frame_header.hpp"
#include "runtime/when_all.hpp"

namespace commbench::fault {

namespace {
std::atomic<size_t> g_injected{0};
}  // namespace

size_t total_faults_injected() noexcept {
  return g_injected.load();
}
void count_fault(FaultPlan& plan) noexcept {
  ++plan.injected;
  ++g_injected;
}

FaultComm::FaultComm(EventLoop& loop, std::unique_ptr<Comm> inner, std::shared_ptr<FaultPlan> plan,
                     const CommLimits& limits, Side side)
    : CommDecorator(std::move(inner)),
      loop_(loop),
      plan_(std::move(plan)),
      limits_(limits),
      side_(side) {}

Task<void> FaultComm::write(const Message& msg, CancelToken token) {
  // Started now, as every comm's write is (comm.hpp): writes go out in call order.
  Task<void> t = write_message(msg, token);
  t.start();
  return t;
}

Task<void> FaultComm::write_message(const Message& msg, CancelToken token) {
  int nth = faulty() ? writes_++ : -2;
  if (faulty() && plan_->write_delay.count() > 0)
    co_await loop_.sleep_for(plan_->write_delay, token);
  // Frame 0 on the inner comm is our own copy of the frame header.
  std::vector<std::byte> header(header_bytes(msg.frames.size()));
  encode_header(msg, header, limits_);
  if (nth == plan_->corrupt_on_write && plan_->corrupt_byte < header.size()) {
    header[plan_->corrupt_byte] ^= std::byte{0xff};
    count_fault(*plan_);
  }
  Message wire;
  wire.frames.reserve(msg.frames.size() + 1);
  wire.frames.push_back(Buffer{header.data(), header.size(), MemoryKind::host});
  wire.frames.insert(wire.frames.end(), msg.frames.begin(), msg.frames.end());
  if (nth == plan_->drop_on_write) {
    co_await write_cut(wire);
    co_return;
  }
  co_await inner_->write(wire, token);
}

// Lets the inner write run for plan.drop_after, cancels it if it has not finished, and
// aborts the connection: the peer sees the connection die with part of a message sent.
Task<void> FaultComm::write_cut(const Message& wire) {
  count_fault(*plan_);
  CancelSource cut;
  bool done = false;
  auto writer = [&]() -> Task<void> {
    try {
      co_await inner_->write(wire, cut.token());
    } catch (const std::exception&) {
      // cancelled (or the transport gave up): either way the connection is cut below
    }
    done = true;
  };
  auto cutter = [&]() -> Task<void> {
    uint64_t until = EventLoop::now_ns() + static_cast<uint64_t>(plan_->drop_after.count());
    while (!done && EventLoop::now_ns() < until)
      co_await loop_.sleep_for(std::chrono::microseconds(200));
    if (!done) cut.cancel();
  };
  co_await when_all(writer(), cutter());
  inner_->abort();
  throw CommClosedError("fault injected: connection to " + peer_address() + " dropped mid-message");
}

Task<void> FaultComm::read(Message& into, CancelToken token) {
  if (faulty() && plan_->read_delay.count() > 0) co_await loop_.sleep_for(plan_->read_delay, token);
  co_await inner_->read(into, token);
  try {
    if (into.frames.empty()) throw ProtocolError("message without its header frame");
    const Buffer& h = into.frames[0];
    std::span<const std::byte> bytes(h.bytes(), h.size);
    uint32_t count = decode_fixed_header(bytes, limits_);
    if (h.size != header_bytes(count)) throw ProtocolError("header frame has the wrong length");
    decode_frame_descriptors(bytes.subspan(kFixedHeaderBytes), count, limits_, frames_in_);
    if (into.frames.size() != size_t{count} + 1)
      throw ProtocolError("header announces " + std::to_string(count) + " frames, " +
                          std::to_string(into.frames.size() - 1) + " arrived");
    for (uint32_t i = 0; i < count; ++i)
      if (frames_in_[i].size != into.frames[i + 1].size)
        throw ProtocolError("frame " + std::to_string(i) + " size differs from its header");
  } catch (const ProtocolError&) {
    inner_->abort();  // as every backend does: a stream out of step cannot be trusted
    throw;
  }
  into.frames.erase(into.frames.begin());
}

}  // namespace commbench::fault
