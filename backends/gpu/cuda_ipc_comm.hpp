// CudaIpcComm: device memory between two processes on one node through CUDA IPC, over any
// comm (the --gpu-path cuda-ipc). A decorator, like StagedComm: device frame bytes never
// cross the inner comm. The sender exports each device frame's allocation once
// (IpcExportCache) and sends a descriptor naming it; the receiver maps the allocation once
// (IpcImportCache), copies device to device into its own frame on a lane, and answers with
// an acknowledgement once the copy is complete, and only then does the sender's write()
// return, so the caller may overwrite its buffer. Host frames travel as they are.
//
// Both ends must wrap their comm. Writes take turns (a write waits for its
// acknowledgement), as do reads; a write and a read run concurrently, and one inner read
// at a time takes whatever comes next (a data message for read(), an acknowledgement for
// a write) and files it for whoever waits for it.
//
// Ordering: the contract of StagedComm (backends/gpu/README.md). write() waits for the
// work the caller issued on the legacy default stream (synchronize_default: the peer copies
// on its own stream, which cannot wait for ours), and read() orders its copies after the
// caller's default-stream work and returns with them complete.
//
// Inner messages: frame 0 is a header, | u32 magic "CIPC" | u8 type (1 data, 2 ack) |
// 3 zero bytes | u32 frame count | and for data per frame | u8 kind | 7 zero bytes |
// u64 size | and for a device frame its IpcRegion (64-byte handle, u64 base, size, id,
// offset) |; then a data message's host frames, in order.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "comm/comm_decorator.hpp"
#include "gpu/device_ops.hpp"
#include "gpu/ipc_handle_cache.hpp"
#include "runtime/async_mutex.hpp"

namespace commbench::gpu {

struct CudaIpcOptions {
  // The memory kind every received payload frame is delivered in; unset = the sender's.
  std::optional<MemoryKind> deliver;
  CommLimits limits;
};

class CudaIpcComm final : public CommDecorator {
 public:
  CudaIpcComm(std::unique_ptr<Comm> inner, DeviceOps& ops, EventLoop& loop,
              CudaIpcOptions options = {});
  ~CudaIpcComm() override;

  Task<void> write(const Message& msg, CancelToken token = {}) override;
  Task<void> read(Message& into, CancelToken token = {}) override;

  // Observations for tests and metadata.
  size_t exports() const noexcept { return exports_.exports(); }
  size_t opens() const noexcept { return imports_.misses(); }

 private:
  // The write itself, which write() starts within the call.
  Task<void> write_message(const Message& msg, CancelToken token);
  static constexpr int kLane = 2;  // the receive pipeline's first lane
  // Reads inner messages, filing each, until `ready()` holds.
  template <typename Ready>
  Task<void> receive_until(Ready ready, CancelToken token);
  void file(Message& m);

  DeviceOps& ops_;
  EventLoop& loop_;
  CudaIpcOptions opt_;
  AsyncMutex write_mutex_, read_mutex_, inner_read_mutex_;
  IpcExportCache exports_;
  IpcImportCache imports_;
  std::vector<std::byte> header_;
  Message out_;                 // what write() sends (reused: no allocation per message)
  std::deque<Message> data_;    // data messages received, not yet read()
  std::vector<Message> spare_;  // read()'s finished messages, their storage kept for reuse
  size_t acks_ = 0;             // acknowledgements received, not yet taken by a write
  Message inbox_;               // the inner read's message
  Message ack_;                 // what read() sends back
  std::vector<std::byte> ack_header_;
};

}  // namespace commbench::gpu
