// A DeviceOps without a GPU: "device" memory is ordinary host memory and every async
// copy is deferred until its lane has been polled `polls_per_copy` times, when the
// memcpy actually happens. A pipeline that reuses a buffer before its copy finished, or
// reads a destination too early, therefore sees wrong bytes: the staging tests use it
// to check the mechanism in CI, where no GPU exists.
//
// The legacy default stream is modelled too, landing its copies as late as CUDA's
// stream semantics allow: copy() into device memory (an allocation of device_memory())
// from pageable host memory reads its source at once but lands only when something
// orders after it (a later copy(), as cudaMemcpy waits for earlier default-stream work;
// synchronize_default(); a lane reaching the mark order_after_default(lane) left; freeing
// device memory, as cudaFree waits for the device), and a device-to-device copy() lands,
// reading its source then, at the same points. Lane copies do not wait for it: code that
// fills a device buffer with copy() and copies it out on a lane without
// order_after_default reads the old bytes, as on a GPU, where the lanes are non-blocking
// streams. Copies into host memory and from pinned memory land every pending
// default-stream copy first and then run at once (cudaMemcpy returns complete).
// Copies on kDefaultLane join the default stream's queue (they land with it, or when that
// lane is polled `polls_per_copy` times), and order_default_after(lane) puts a mark in that
// queue which, when reached, finishes the lane's copies issued before it: default-stream
// work after it sees them, earlier work (and the host, unsynchronised) does not.
//
// CUDA IPC is simulated: device memory is shared memory, a handle names the allocation
// (its base, id and size, the process and the memfd holding it), and opening another
// process's handle maps that memfd while the allocation lives. Opening this process's own
// handle maps the allocation at its own address: a real device refuses that, the
// simulation allows it so that ipc_handle_cache.hpp is tested in one process.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "gpu/device_ops.hpp"

namespace commbench::gpu {

class HostDeviceOps final : public DeviceOps {
 public:
  explicit HostDeviceOps(int polls_per_copy = 3);
  ~HostDeviceOps() override;

  std::string name() const override { return "host-simulated"; }
  std::string schedule() const override { return "simulated"; }
  MemoryAllocator& device_memory() override;
  MemoryAllocator& pinned_memory() override;
  void copy_async(void* dst, const void* src, size_t n, int lane) override;
  bool lane_idle(int lane) override;
  void copy(void* dst, const void* src, size_t n) override;
  void order_after_default(int lane) override;
  void order_default_after(int lane) override;
  void synchronize_default() override;
  std::optional<DeviceAllocation> find_allocation(const void* p) override;
  IpcHandle ipc_export(void* base) override;
  void* ipc_open(const IpcHandle& h) override;
  void ipc_close(void* mapped) noexcept override;

  // Observations for tests.
  size_t copies_issued() const noexcept { return issued_; }
  // Copies issued while the other lane of the same pipeline still had one pending.
  size_t overlapped_issues() const noexcept { return overlapped_; }
  // Whether a copy is pending on `lane` (does not count as a poll).
  bool busy(int lane) const noexcept;
  // Entries of the simulated default stream that have not run yet: copy()s into device
  // memory, kDefaultLane copies and order_default_after marks.
  size_t default_pending() const noexcept { return default_.size(); }
  size_t device_bytes_live() const noexcept;
  size_t ipc_exports() const noexcept { return ipc_exports_; }
  size_t ipc_opens() const noexcept { return ipc_opens_; }
  // Mappings opened and not closed yet.
  size_t ipc_mapped() const noexcept { return ipc_mapped_; }

 private:
  // A lane entry: copy number `no` of the lane, or (mark set) the point where the lane
  // waits for the default-stream copies numbered up to *mark, which takes no polls of its
  // own.
  struct Pending {
    void* dst;
    const void* src;
    size_t n;
    int polls_left;
    std::optional<uint64_t> mark;
    uint64_t no = 0;
  };
  // A copy() or kDefaultLane copy on the simulated legacy default stream that has not
  // landed: `src` is read when it lands (device to device, pinned on kDefaultLane) unless
  // `staged` holds the bytes it read at the call (pageable host to device, as cudaMemcpy's
  // staging buffer does). With `wait_lane` set it is an order_default_after mark instead:
  // landing it finishes that lane's copies numbered up to `lane_upto`.
  struct DefaultCopy {
    uint64_t seq;
    void* dst;
    const void* src;
    size_t n;
    std::vector<std::byte> staged;
    int wait_lane = -1;
    uint64_t lane_upto = 0;
  };
  struct Tracker;
  void* open_peer(uint64_t pid, uint64_t fd, uint64_t id, uint64_t size);
  // Lands, in order, the pending default-stream copies numbered up to `upto`.
  void land_default(uint64_t upto);
  // Runs `lane`'s copies up to number `upto` now (and the marks before them).
  void finish_lane(int lane, uint64_t upto);
  int polls_per_copy_;
  std::deque<Pending> lanes_[kLanes];
  std::deque<DefaultCopy> default_;
  uint64_t default_seq_ = 0;           // the number of the last copy() put on default_
  uint64_t default_lane_seq_ = 0;      // ... and of the last kDefaultLane copy
  int default_lane_polls_ = 0;         // polls of kDefaultLane left before it lands
  uint64_t lane_issued_[kLanes] = {};  // copies issued per lane, numbering Pending::no
  size_t issued_ = 0, overlapped_ = 0;
  size_t ipc_exports_ = 0, ipc_opens_ = 0, ipc_mapped_ = 0;
  std::unique_ptr<Tracker> device_, pinned_;
  std::unordered_map<void*, size_t> peer_maps_;  // another process's allocations, mapped
};

}  // namespace commbench::gpu
