// The real CUDA device: allocators, copies on lanes, and StagedComm over TCP with device
// frames. Every test skips (CTest reports "Skipped") when this machine has no GPU.
#include "gpu/cuda/cuda_device.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "comm/registry.hpp"
#include "gpu/gpu_path.hpp"
#include "gpu/ipc_handle_cache.hpp"
#include "gpu/staged_comm.hpp"
#include "gpu_test_support.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace commbench::gpu;
using namespace std::chrono_literals;

namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13 + (i >> 9));
  return v;
}

// Runs `body(a, b)` on two StagedComms over a loopback tcp pair (a wrote, b read), the
// whole within `limit`.
void over_staged_tcp_pair(DeviceOps& ops, std::chrono::seconds limit,
                          const std::function<Task<void>(StagedComm&, StagedComm&)>& body,
                          StagedOptions reader = {}) {
  EventLoop loop;
  auto backend = registry().create("tcp", loop);
  std::unique_ptr<Comm> a, b;
  auto listener = backend->make_listener(backend->default_listen_address("127.0.0.1"));
  loop.run(with_timeout(loop, limit, [&](CancelToken) -> Task<void> {
    co_await listener->start([&](std::unique_ptr<Comm> c) -> Task<void> {
      b = std::move(c);
      co_return;
    });
    a = co_await backend->make_connector()->connect(listener->contact_address(), 5s);
    while (!b) co_await loop.sleep_for(100us);
    StagedComm sa(std::move(a), ops, loop), sb(std::move(b), ops, loop, reader);
    co_await body(sa, sb);
  }));
}

}  // namespace

TEST(CudaDevice, CountNeverThrows) {
  std::string why;
  int n = cuda::device_count(&why);
  if (n == 0) {
    EXPECT_FALSE(why.empty());
  }
  EXPECT_FALSE(cuda::describe_device().empty());
}

TEST(CudaDevice, AllocatesAndCopiesOnLanes) {
  REQUIRE_DEVICE(ops);
  const size_t n = (8 << 20) + 3;
  auto src = pattern(n, 5);
  Storage dev, pinned;
  void* d = dev.reserve(n, MemoryKind::cuda);
  void* p = pinned.reserve(n, MemoryKind::host, &ops->pinned_memory());
  std::memcpy(p, src.data(), n);
  ops->copy_async(d, p, n, 0);
  while (!ops->lane_idle(0)) {
  }
  std::vector<uint8_t> back(n);
  ops->copy(back.data(), d, n);
  EXPECT_EQ(back, src);
}

TEST(CudaDevice, StagedCommMovesDeviceFramesOverTcp) {
  REQUIRE_DEVICE(ops);
  const size_t n = (5 << 20) + 11;  // several 1 MiB chunks and a tail
  auto src = pattern(n, 9);
  std::vector<uint8_t> back(n);
  over_staged_tcp_pair(*ops, 30s, [&](StagedComm& sa, StagedComm& sb) -> Task<void> {
    Storage dev;
    void* d = dev.reserve(n, MemoryKind::cuda);
    ops->copy(d, src.data(), n);
    Message out({Buffer{d, n, MemoryKind::cuda}}), in;
    co_await when_all(sa.write(out), sb.read(in));
    EXPECT_EQ(in.frames.at(0).kind, MemoryKind::cuda);
    ops->copy(back.data(), in.frames.at(0).data, n);
  });
  EXPECT_EQ(back, src);
}

// cudaMemcpy from pageable memory may return before its bytes land on the device (they
// land later, on the legacy default stream); order_after_default makes a lane wait for
// them. Small copies are the ones CUDA returns from early, so many small rounds.
TEST(CudaDevice, OrderAfterDefaultWaitsForAPageableCopy) {
  REQUIRE_DEVICE(ops);
  const size_t n = 4096;
  Storage dev, pinned;
  void* d = dev.reserve(n, MemoryKind::cuda);
  auto* p = static_cast<uint8_t*>(pinned.reserve(n, MemoryKind::host, &ops->pinned_memory()));
  size_t wrong_rounds = 0;
  for (int round = 0; round < 200; ++round) {
    auto src = pattern(n, static_cast<uint8_t>(round));
    ops->copy(d, src.data(), n);
    ops->order_after_default(0);
    ops->copy_async(p, d, n, 0);
    while (!ops->lane_idle(0)) {
    }
    wrong_rounds += std::memcmp(p, src.data(), n) != 0;
  }
  EXPECT_EQ(wrong_rounds, 0u);
}

// What pingpong --memory cuda --validate does on the staged path, at the inline sizes
// that came back wrong on an H200 before StagedComm ordered its copies after the
// caller's default stream: refill one device buffer with copy() and write it at once.
// With stream-ordered reads on the receiver (--gpu-read-completion stream) the copy out,
// on the default stream right after read() returns, must see every byte too.
void send_device_frames_just_filled_by_copy(DeviceOps* ops, bool stream_reads) {
  std::vector<std::string> wrong;
  StagedOptions reader;
  reader.stream_ordered_reads = stream_reads;
  over_staged_tcp_pair(
      *ops, 60s,
      [&](StagedComm& sa, StagedComm& sb) -> Task<void> {
        Storage dev;
        Message in;
        for (size_t n : {size_t{1}, size_t{64}, size_t{4096}, size_t{32768}, size_t{262144},
                         (size_t{3} << 20) + 5}) {
          void* d = dev.reserve(n, MemoryKind::cuda);
          for (int i = 0; i < 20; ++i) {
            auto src = pattern(n, static_cast<uint8_t>(3 * i + 1));
            ops->copy(d, src.data(), n);
            Message out({Buffer{d, n, MemoryKind::cuda}});
            co_await when_all(sa.write(out), sb.read(in));
            std::vector<uint8_t> back(n);
            ops->copy(back.data(), in.frames.at(0).data, n);
            if (back != src)
              wrong.push_back(std::to_string(n) + " B, message " + std::to_string(i));
          }
        }
      },
      reader);
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " wrong, the first "
                             << (wrong.empty() ? std::string() : wrong.front());
}
TEST(CudaDevice, StagedCommSendsDeviceFramesJustFilledByCopy) {
  REQUIRE_DEVICE(ops);
  send_device_frames_just_filled_by_copy(ops, false);
}
TEST(CudaDevice, StagedCommStreamReadsLandBeforeACopyOut) {
  REQUIRE_DEVICE(ops);
  send_device_frames_just_filled_by_copy(ops, true);
}

// order_default_after: a cudaMemcpy out of a device buffer, issued right after a lane's
// copy into it, sees the lane's bytes. The lane is kept busy first by a large copy (about
// 1 ms at pinned bandwidth), so without the ordering the cudaMemcpy, on another copy
// engine, would read the buffer before the lane's small copy reached it.
TEST(CudaDevice, OrderDefaultAfterMakesTheDefaultStreamWaitForALane) {
  REQUIRE_DEVICE(ops);
  const size_t n = 4096, big = size_t{64} << 20;
  Storage dev, pinned, dev_big, pinned_big;
  void* d = dev.reserve(n, MemoryKind::cuda);
  void* d_big = dev_big.reserve(big, MemoryKind::cuda);
  auto* p = static_cast<uint8_t*>(pinned.reserve(n, MemoryKind::host, &ops->pinned_memory()));
  void* p_big = pinned_big.reserve(big, MemoryKind::host, &ops->pinned_memory());
  std::memset(p_big, 1, big);
  size_t wrong_rounds = 0;
  for (int round = 0; round < 20; ++round) {
    auto src = pattern(n, static_cast<uint8_t>(round));
    std::memcpy(p, src.data(), n);
    ops->copy_async(d_big, p_big, big, 2);
    ops->copy_async(d, p, n, 2);
    ops->order_default_after(2);
    std::vector<uint8_t> back(n);
    ops->copy(back.data(), d, n);
    wrong_rounds += back != src;
    while (!ops->lane_idle(2)) {
    }
  }
  EXPECT_EQ(wrong_rounds, 0u);
}

// The CUDA side of gpu/ipc_handle_cache.hpp: allocations are traced back to their base,
// a handle is exported once per allocation and again for a new one. Opening needs a
// second process (CUDA refuses its own handles), which the comm path will bring.
TEST(CudaDevice, ExportsOneIpcHandlePerAllocation) {
  REQUIRE_DEVICE(ops);
  MemoryAllocator& dev = ops->device_memory();
  auto* a = static_cast<std::byte*>(dev.allocate(1 << 20));
  auto found = ops->find_allocation(a + 4096);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->base, a);
  EXPECT_EQ(found->size, size_t{1} << 20);
  IpcExportCache cache(*ops);
  IpcRegion r0 = cache.describe(a), r1 = cache.describe(a + 4096);
  EXPECT_EQ(cache.exports(), 1u);
  EXPECT_EQ(r1.offset, 4096u);
  EXPECT_EQ(r0.handle.bytes, r1.handle.bytes);
  dev.deallocate(a, 1 << 20);
  EXPECT_FALSE(ops->find_allocation(a));
  void* b = dev.allocate(1 << 20);
  IpcRegion rb = cache.describe(b);
  EXPECT_NE(rb.id, r0.id);
  EXPECT_EQ(cache.exports(), 2u);
  dev.deallocate(b, 1 << 20);
}
