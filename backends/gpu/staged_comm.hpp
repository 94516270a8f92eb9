// StagedComm: device memory over any host-only comm. A decorator, so tcp, mpi and ucx
// need no CUDA code: device frames are copied through pinned host buffers in chunks, and
// two buffers per direction let the copy of chunk k+1 (device to host, on its own
// stream) run while chunk k is on the wire, and on the receiver the host-to-device copy
// of chunk k run while chunk k+1 arrives. Wire format: staged_wire.hpp.
//
// Both ends must wrap their comm. Writes on one comm take turns (whole messages), as do
// reads; a write and a read run concurrently. Host frames pass through without a copy
// on the sender; the receiver copies every payload frame once out of its staging
// buffers into the message it returns. One message is several inner messages, so a
// write or read that fails or is cancelled half-way leaves the stream mid-message: the
// comm is then only good for abort().
//
// Ordering (backends/gpu/README.md): a write copies device frames out only after the work
// the caller issued on the legacy default stream before it (a cudaMemcpy that filled
// them, say); a read delivers into device frames after that work too, and returns with
// them complete and visible to every stream, or, with stream_ordered_reads, with them
// queued on the default stream before the caller's later work there. Work on the caller's
// own non-blocking streams is the caller's to synchronise before a write.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "comm/comm_decorator.hpp"
#include "gpu/device_ops.hpp"
#include "gpu/staged_wire.hpp"
#include "runtime/async_mutex.hpp"

namespace commbench::gpu {

struct StagedOptions {
  size_t chunk_bytes = size_t{1} << 20;  // pipeline granularity and inline threshold
  // Messages whose device bytes are at most this (and travel inline) are copied with
  // DeviceOps::copy, a blocking cudaMemcpy on the legacy default stream, instead of a lane
  // copy ordered after the default stream and polled through an event: one CUDA call per
  // side instead of four, and ordered after the caller's default-stream work by
  // construction. The event loop waits during the copy. 0 = always lanes. Reads use it only
  // when they complete on the host (below).
  size_t sync_copy_max = 0;
  // When read() returns (backends/gpu/README.md). false: its device frames have landed,
  // visible to the host and to work on any stream. true (stream-ordered, as an NCCL call
  // completes on its stream, here the legacy default one): its copies into them are
  // queued on the default stream, so work the caller issues there afterwards sees them,
  // and the host after a synchronisation (a cudaMemcpy out of them, say). The read waits
  // for no copy: small messages' host-to-device copies overlap the caller's next step.
  bool stream_ordered_reads = false;
  // The memory kind every received payload frame is delivered in; unset = the kind the
  // sender's frame had (how Dask moves device frames).
  std::optional<MemoryKind> deliver;
  CommLimits limits;
};

class StagedComm final : public CommDecorator {
 public:
  StagedComm(std::unique_ptr<Comm> inner, DeviceOps& ops, EventLoop& loop,
             StagedOptions options = {});
  ~StagedComm() override;

  Task<void> write(const Message& msg, CancelToken token = {}) override;
  Task<void> read(Message& into, CancelToken token = {}) override;

 private:
  // The write itself, which write() starts within the call.
  Task<void> write_message(const Message& msg, CancelToken token);
  static constexpr int kSendLane = 0;  // lanes 0, 1
  static constexpr int kRecvLane = 2;  // lanes 2, 3
  static constexpr int kDefaultLane = DeviceOps::kDefaultLane;
  Task<void> wait_lane(int lane);
  // Places `n` bytes at `dst` (kind `dst_kind`) from pinned `src`, on `lane` if async.
  void deliver(void* dst, MemoryKind dst_kind, const void* src, size_t n, int lane);

  DeviceOps& ops_;
  EventLoop& loop_;
  StagedOptions opt_;
  AsyncMutex write_mutex_, read_mutex_;
  Storage stage_[2];  // pinned send staging, one per send lane
  std::vector<std::byte> descriptor_;
  Message rx_[2];  // receive staging (pinned), one per receive lane
};

}  // namespace commbench::gpu
