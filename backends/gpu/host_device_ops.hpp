// A DeviceOps without a GPU: "device" memory is ordinary host memory and every async
// copy is deferred until its lane has been polled `polls_per_copy` times, when the
// memcpy actually happens. A pipeline that reuses a buffer before its copy finished, or
// reads a destination too early, therefore sees wrong bytes: the staging tests use it
// to check the mechanism in CI, where no GPU exists.
//
// CUDA IPC is simulated within one process: a handle names the allocation (its base and
// id), and opening it maps it at its own address while the allocation is live. A real
// device refuses to open its own process's handles; the simulation allows it so that
// ipc_handle_cache.hpp is tested without a second process or a GPU.
#pragma once

#include <deque>
#include <memory>

#include "gpu/device_ops.hpp"

namespace commbench::gpu {

class HostDeviceOps final : public DeviceOps {
 public:
  explicit HostDeviceOps(int polls_per_copy = 3);
  ~HostDeviceOps() override;

  std::string name() const override { return "host-simulated"; }
  MemoryAllocator& device_memory() override;
  MemoryAllocator& pinned_memory() override;
  void copy_async(void* dst, const void* src, size_t n, int lane) override;
  bool lane_idle(int lane) override;
  void copy(void* dst, const void* src, size_t n) override;
  // copy() completes at once here, so there is nothing on the default stream to wait for.
  void order_after_default(int lane) override;
  void synchronize_default() override {}
  std::optional<DeviceAllocation> find_allocation(const void* p) override;
  IpcHandle ipc_export(void* base) override;
  void* ipc_open(const IpcHandle& h) override;
  void ipc_close(void* mapped) noexcept override;

  // Observations for tests.
  size_t copies_issued() const noexcept { return issued_; }
  // Copies issued while the other lane of the same pipeline still had one pending.
  size_t overlapped_issues() const noexcept { return overlapped_; }
  // Whether a copy is pending on `lane` (does not count as a poll).
  bool busy(int lane) const noexcept { return !lanes_[lane].empty(); }
  size_t device_bytes_live() const noexcept;
  size_t ipc_exports() const noexcept { return ipc_exports_; }
  size_t ipc_opens() const noexcept { return ipc_opens_; }
  // Mappings opened and not closed yet.
  size_t ipc_mapped() const noexcept { return ipc_mapped_; }

 private:
  struct Pending {
    void* dst;
    const void* src;
    size_t n;
    int polls_left;
  };
  struct Tracker;
  int polls_per_copy_;
  std::deque<Pending> lanes_[kLanes];
  size_t issued_ = 0, overlapped_ = 0;
  size_t ipc_exports_ = 0, ipc_opens_ = 0, ipc_mapped_ = 0;
  std::unique_ptr<Tracker> device_, pinned_;
};

}  // namespace commbench::gpu
