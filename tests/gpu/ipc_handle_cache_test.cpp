// The CUDA IPC handle caches (gpu/ipc_handle_cache.hpp) on the simulated device, whose
// handles name an allocation and open in the same process while it is live: each
// allocation is exported and opened once, a freed allocation is never served, and a new
// allocation at a reused address gets a new handle on both sides.
#include "gpu/ipc_handle_cache.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "gpu/host_device_ops.hpp"

using namespace commbench;
using namespace commbench::gpu;

namespace {

constexpr uint64_t kPeer = 7;

struct Fixture : ::testing::Test {
  HostDeviceOps ops;
  MemoryAllocator& dev = ops.device_memory();
};

using IpcExport = Fixture;
// A sender's and a receiver's cache over the same simulated device.
struct IpcImport : Fixture {
  IpcExportCache out{ops};
  IpcImportCache in{ops};
};

}  // namespace

TEST_F(IpcExport, OneExportPerAllocationWithOffsets) {
  auto* a = static_cast<std::byte*>(dev.allocate(4096));
  auto* b = static_cast<std::byte*>(dev.allocate(100));
  IpcExportCache cache(ops);
  IpcRegion r0 = cache.describe(a);
  IpcRegion r1 = cache.describe(a + 1000);
  EXPECT_EQ(r0.base, reinterpret_cast<uintptr_t>(a));
  EXPECT_EQ(r0.size, 4096u);
  EXPECT_EQ(r0.offset, 0u);
  EXPECT_EQ(r1.offset, 1000u);
  EXPECT_EQ(r1.id, r0.id);
  EXPECT_EQ(r1.handle.bytes, r0.handle.bytes);
  EXPECT_EQ(cache.exports(), 1u);
  EXPECT_EQ(ops.ipc_exports(), 1u);
  IpcRegion rb = cache.describe(b + 99);
  EXPECT_NE(rb.id, r0.id);
  EXPECT_EQ(rb.offset, 99u);
  EXPECT_EQ(cache.exports(), 2u);
  EXPECT_EQ(cache.entries(), 2u);
  dev.deallocate(a, 4096);
  dev.deallocate(b, 100);
}

TEST_F(IpcExport, HostMemoryAndFreedBuffersAreRefused) {
  IpcExportCache cache(ops);
  std::vector<std::byte> host(64);
  EXPECT_THROW(cache.describe(host.data()), std::invalid_argument);
  void* a = dev.allocate(256);
  EXPECT_THROW(cache.describe(static_cast<std::byte*>(a) + 256), std::invalid_argument);
  cache.describe(a);
  dev.deallocate(a, 256);
  EXPECT_THROW(cache.describe(a), std::invalid_argument);  // never the stale handle
  EXPECT_EQ(cache.entries(), 1u);
  cache.prune();
  EXPECT_EQ(cache.entries(), 0u);
}

// Allocating again right after a free tends to return the same address; the table's id
// tells the two allocations apart either way.
TEST_F(IpcExport, NewAllocationAtAReusedAddressIsExportedAgain) {
  IpcExportCache cache(ops);
  void* a = dev.allocate(512);
  IpcRegion first = cache.describe(a);
  dev.deallocate(a, 512);
  std::vector<void*> tries;
  void* again = nullptr;
  for (int i = 0; i < 64 && !again; ++i) {
    void* p = dev.allocate(512);
    if (p == a)
      again = p;
    else
      tries.push_back(p);
  }
  for (void* p : tries) dev.deallocate(p, 512);
  if (!again) GTEST_SKIP() << "the allocator never reused the address";
  IpcRegion second = cache.describe(again);
  EXPECT_EQ(second.base, first.base);
  EXPECT_NE(second.id, first.id);
  EXPECT_NE(second.handle.bytes, first.handle.bytes);
  EXPECT_EQ(cache.exports(), 2u);
  EXPECT_EQ(cache.entries(), 1u);
  dev.deallocate(again, 512);
}

TEST_F(IpcImport, OpensOncePerAllocationAndReadsThePeersBytes) {
  auto* a = static_cast<std::byte*>(dev.allocate(1024));
  for (int i = 0; i < 1024; ++i) a[i] = static_cast<std::byte>(i * 7);
  auto* p = static_cast<std::byte*>(in.map(kPeer, out.describe(a + 10), 100));
  EXPECT_EQ(std::memcmp(p, a + 10, 100), 0);
  auto* q = static_cast<std::byte*>(in.map(kPeer, out.describe(a + 500), 524));
  EXPECT_EQ(q, p + 490);  // the same mapping
  EXPECT_EQ(in.misses(), 1u);
  EXPECT_EQ(in.hits(), 1u);
  EXPECT_EQ(ops.ipc_opens(), 1u);
  // Another peer's allocation at the same base is another mapping.
  in.map(kPeer + 1, out.describe(a), 1);
  EXPECT_EQ(in.entries(), 2u);
  EXPECT_EQ(ops.ipc_mapped(), 2u);
  in.forget_peer(kPeer);
  EXPECT_EQ(in.entries(), 1u);
  EXPECT_EQ(ops.ipc_mapped(), 1u);
  in.clear();  // what the destructor does
  EXPECT_EQ(ops.ipc_mapped(), 0u);
  dev.deallocate(a, 1024);
}

TEST_F(IpcImport, ANewIdAtAKnownBaseReplacesTheDeadMapping) {
  void* a = dev.allocate(256);
  IpcRegion old_region = out.describe(a);
  in.map(kPeer, old_region, 256);
  // The peer freed the buffer; a new one now sits at the same base (another id).
  dev.deallocate(a, 256);
  void* b = dev.allocate(256);
  IpcRegion fresh = out.describe(b);
  // As if the address had been reused (the handle still names b, which is live).
  fresh.base = old_region.base;
  EXPECT_NO_THROW(in.map(kPeer, fresh, 256));
  EXPECT_EQ(in.misses(), 2u);
  EXPECT_EQ(in.entries(), 1u);
  EXPECT_EQ(ops.ipc_mapped(), 1u);  // the dead mapping was closed
  dev.deallocate(b, 256);
}

TEST_F(IpcImport, ErrorsLeaveTheCacheConsistent) {
  void* a = dev.allocate(128);
  IpcRegion r = out.describe(a);
  EXPECT_THROW(in.map(kPeer, r, 129), std::invalid_argument);  // beyond the allocation
  r.offset = 200;
  EXPECT_THROW(in.map(kPeer, r, 0), std::invalid_argument);
  r.offset = 0;
  dev.deallocate(a, 128);
  // The owner freed it before we opened it: the open fails, nothing is cached.
  EXPECT_THROW(in.map(kPeer, r, 1), std::runtime_error);
  EXPECT_EQ(in.entries(), 0u);
  EXPECT_EQ(ops.ipc_mapped(), 0u);
  IpcRegion garbage;
  garbage.size = 8;
  EXPECT_THROW(in.map(kPeer, garbage, 1), std::runtime_error);
}

TEST(IpcDevice, DevicesWithoutIpcSayWhy) {
  // The DeviceOps defaults: a device that cannot export refuses with its name.
  struct NoIpc final : DeviceOps {
    std::string name() const override { return "no-ipc"; }
    std::string schedule() const override { return "none"; }
    MemoryAllocator& device_memory() override { return allocator_for(MemoryKind::host); }
    MemoryAllocator& pinned_memory() override { return allocator_for(MemoryKind::host); }
    void copy_async(void*, const void*, size_t, int) override {}
    bool lane_idle(int) override { return true; }
    void copy(void*, const void*, size_t) override {}
    void order_after_default(int) override {}
    void order_default_after(int) override {}
    void synchronize_default() override {}
  } ops;
  IpcExportCache out(ops);
  int x = 0;
  EXPECT_THROW(out.describe(&x), std::invalid_argument);
  try {
    ops.ipc_open(IpcHandle{});
    FAIL() << "opened a handle without IPC";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-ipc"), std::string::npos);
  }
}
