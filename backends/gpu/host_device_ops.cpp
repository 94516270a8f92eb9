#include "gpu/host_device_ops.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace commbench::gpu {

// Counts live bytes so tests can check that nothing leaks from a pool.
struct HostDeviceOps::Tracker final : MemoryAllocator {
  size_t live = 0;
  void* allocate(size_t bytes) override {
    void* p = std::malloc(bytes == 0 ? 1 : bytes);
    if (!p) throw std::bad_alloc();
    live += bytes;
    return p;
  }
  void deallocate(void* p, size_t bytes) noexcept override {
    live -= bytes;
    std::free(p);
  }
};

HostDeviceOps::HostDeviceOps(int polls_per_copy)
    : polls_per_copy_(polls_per_copy < 1 ? 1 : polls_per_copy),
      device_(std::make_unique<Tracker>()),
      pinned_(std::make_unique<Tracker>()) {}

HostDeviceOps::~HostDeviceOps() = default;

MemoryAllocator& HostDeviceOps::device_memory() {
  return *device_;
}
MemoryAllocator& HostDeviceOps::pinned_memory() {
  return *pinned_;
}
size_t HostDeviceOps::device_bytes_live() const noexcept {
  return device_->live;
}

void HostDeviceOps::copy_async(void* dst, const void* src, size_t n, int lane) {
  if (lane < 0 || lane >= kLanes) throw std::invalid_argument("copy_async: bad lane");
  int pair = lane & ~1;  // lanes 0-1 and 2-3 form one pipeline each
  int other = pair + (lane == pair ? 1 : 0);
  if (!lanes_[other].empty()) ++overlapped_;
  ++issued_;
  lanes_[lane].push_back({dst, src, n, polls_per_copy_});
}

bool HostDeviceOps::lane_idle(int lane) {
  auto& q = lanes_[lane];
  if (q.empty()) return true;
  if (--q.front().polls_left <= 0) {
    Pending p = q.front();
    q.pop_front();
    if (p.n) std::memcpy(p.dst, p.src, p.n);
  }
  return q.empty();
}

void HostDeviceOps::copy(void* dst, const void* src, size_t n) {
  if (n) std::memcpy(dst, src, n);
}

}  // namespace commbench::gpu
