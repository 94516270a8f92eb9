#include "gpu/host_device_ops.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace commbench::gpu {

// Counts live bytes so tests can check that nothing leaks from a pool, and keeps the
// allocation table that CUDA IPC needs.
//
// Device memory is shared memory (one memfd per allocation, kept open while it lives), so
// that another process can map it as cudaIpcOpenMemHandle maps a peer's allocation: the
// two ranks of a benchmark run CUDA IPC on the simulated device too. The memfd is named
// after the allocation's id, so a peer that opens a freed and reused descriptor notices.
struct HostDeviceOps::Tracker final : MemoryAllocator {
  size_t live = 0;
  AllocationTable table;
  // Set for device and pinned memory: cudaFree and cudaFreeHost wait for the device, so
  // the default-stream copies still to land (into or out of this block among them) land
  // before it is freed.
  HostDeviceOps* lands_before_free = nullptr;
  bool shared = false;                    // device memory: memfds a peer can map
  std::unordered_map<void*, int> memfds;  // base -> its memfd
  void* allocate(size_t bytes) override {
    size_t n = bytes == 0 ? 1 : bytes;
    void* p = nullptr;
    if (shared) {
      int fd =
          memfd_create(("commbench-sim-" + std::to_string(table.next_id())).c_str(), MFD_CLOEXEC);
      if (fd < 0) throw std::bad_alloc();
      void* m = MAP_FAILED;
      if (ftruncate(fd, static_cast<off_t>(n)) == 0)
        m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (m == MAP_FAILED) {
        close(fd);
        throw std::bad_alloc();
      }
      p = m;
      memfds[p] = fd;
    } else {
      p = std::malloc(n);
      if (!p) throw std::bad_alloc();
    }
    live += bytes;
    table.add(p, bytes);
    return p;
  }
  void deallocate(void* p, size_t bytes) noexcept override {
    if (lands_before_free) lands_before_free->land_default(lands_before_free->default_seq_);
    live -= bytes;
    table.remove(p);
    if (auto it = memfds.find(p); it != memfds.end()) {
      munmap(p, bytes == 0 ? 1 : bytes);
      close(it->second);
      memfds.erase(it);
    } else {
      std::free(p);
    }
  }
};

namespace {
// A simulated handle: this tag, the allocation's base, id and size in its process, the
// process and the memfd that holds it there.
constexpr uint64_t kSimulatedHandleTag = 0x6370692d6d6973ULL;  // "sim-ipc"
struct SimulatedHandle {
  uint64_t tag, base, id, size, pid, fd;
};
static_assert(sizeof(SimulatedHandle) <= sizeof(IpcHandle::bytes));
}  // namespace

HostDeviceOps::HostDeviceOps(int polls_per_copy)
    : polls_per_copy_(polls_per_copy < 1 ? 1 : polls_per_copy),
      device_(std::make_unique<Tracker>()),
      pinned_(std::make_unique<Tracker>()) {
  device_->lands_before_free = this;
  pinned_->lands_before_free = this;
  device_->shared = true;
}

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
  if (lane < 0 || lane > kDefaultLane) throw std::invalid_argument("copy_async: bad lane");
  ++issued_;
  if (lane == kDefaultLane) {
    // cudaMemcpyAsync on the legacy stream: after its earlier work, source read as it runs.
    default_.push_back({++default_seq_, dst, src, n, {}});
    default_lane_seq_ = default_seq_;
    default_lane_polls_ = polls_per_copy_;
    return;
  }
  int pair = lane & ~1;  // lanes 0-1 and 2-3 form one pipeline each
  int other = pair + (lane == pair ? 1 : 0);
  if (busy(other)) ++overlapped_;
  lanes_[lane].push_back({dst, src, n, polls_per_copy_, std::nullopt, ++lane_issued_[lane]});
}

bool HostDeviceOps::busy(int lane) const noexcept {
  if (lane == kDefaultLane) return !default_.empty() && default_.front().seq <= default_lane_seq_;
  for (const auto& p : lanes_[lane])
    if (!p.mark) return true;
  return false;
}

bool HostDeviceOps::lane_idle(int lane) {
  if (lane == kDefaultLane) {
    // Its event stands behind its last copy and everything on the stream before that.
    if (!busy(kDefaultLane)) return true;
    if (--default_lane_polls_ > 0) return false;
    land_default(default_lane_seq_);
    return true;
  }
  auto& q = lanes_[lane];
  // A lane that reaches an order_after_default mark waits for the default stream: the
  // copies before the mark land now (taking no polls), the lane's next copy after them.
  auto pass_marks = [&] {
    while (!q.empty() && q.front().mark) {
      land_default(*q.front().mark);
      q.pop_front();
    }
  };
  pass_marks();
  if (q.empty()) return true;
  if (--q.front().polls_left <= 0) {
    Pending p = q.front();
    q.pop_front();
    if (p.n) std::memcpy(p.dst, p.src, p.n);
    pass_marks();
  }
  return q.empty();
}

void HostDeviceOps::finish_lane(int lane, uint64_t upto) {
  auto& q = lanes_[lane];
  // Runs the queue's front while a copy numbered up to `upto` is still in it. The marks
  // met before those copies point at default-stream work issued before them, hence before
  // the default-stream mark being landed: they never wait for it.
  auto is_copy = [](const Pending& p) { return !p.mark; };
  for (auto c = std::find_if(q.begin(), q.end(), is_copy); c != q.end() && c->no <= upto;
       c = std::find_if(q.begin(), q.end(), is_copy)) {
    Pending p = q.front();
    q.pop_front();
    if (p.mark)
      land_default(*p.mark);
    else if (p.n)
      std::memcpy(p.dst, p.src, p.n);
  }
}

void HostDeviceOps::copy(void* dst, const void* src, size_t n) {
  if (n == 0) return;
  bool to_device = device_->table.find(dst).has_value();
  bool from_device = device_->table.find(src).has_value();
  bool from_pinned = pinned_->table.find(src).has_value();
  if (to_device && !from_pinned) {
    // cudaMemcpy into device memory that may return before its bytes land.
    DefaultCopy c{++default_seq_, dst, src, n, {}};
    if (!from_device) {
      // Pageable source: the stream is synchronised first, then the source is read into
      // a staging buffer and the call returns; the DMA lands later.
      land_default(c.seq - 1);
      const auto* b = static_cast<const std::byte*>(src);
      c.staged.assign(b, b + n);
    }
    default_.push_back(std::move(c));
    return;
  }
  // Into host memory, or from pinned memory: after everything before it, and complete.
  land_default(default_seq_);
  std::memcpy(dst, src, n);
}

void HostDeviceOps::order_after_default(int lane) {
  if (lane < 0 || lane > kDefaultLane) throw std::invalid_argument("order_after_default: bad lane");
  if (lane == kDefaultLane || default_.empty()) return;  // nothing to wait for
  lanes_[lane].push_back({nullptr, nullptr, 0, 0, default_seq_});
}

void HostDeviceOps::order_default_after(int lane) {
  if (lane < 0 || lane > kDefaultLane) throw std::invalid_argument("order_default_after: bad lane");
  if (lane == kDefaultLane || !busy(lane)) return;  // no copy of the lane to wait for
  DefaultCopy mark{++default_seq_, nullptr, nullptr, 0, {}};
  mark.wait_lane = lane;
  mark.lane_upto = lane_issued_[lane];
  default_.push_back(std::move(mark));
}

void HostDeviceOps::synchronize_default() {
  land_default(default_seq_);
}

void HostDeviceOps::land_default(uint64_t upto) {
  while (!default_.empty() && default_.front().seq <= upto) {
    DefaultCopy c = std::move(default_.front());
    default_.pop_front();
    if (c.wait_lane >= 0)
      finish_lane(c.wait_lane, c.lane_upto);
    else if (c.n)
      std::memcpy(c.dst, c.staged.empty() ? c.src : c.staged.data(), c.n);
  }
}

std::optional<DeviceAllocation> HostDeviceOps::find_allocation(const void* p) {
  return device_->table.find(p);
}

IpcHandle HostDeviceOps::ipc_export(void* base) {
  auto a = device_->table.find(base);
  if (!a || a->base != base)
    throw std::invalid_argument("CUDA IPC (simulated): not the base of a device allocation");
  auto fd = device_->memfds.find(base);
  SimulatedHandle sh{
      kSimulatedHandleTag,
      reinterpret_cast<uintptr_t>(base),
      a->id,
      a->size,
      static_cast<uint64_t>(getpid()),
      fd == device_->memfds.end() ? ~uint64_t{0} : static_cast<uint64_t>(fd->second)};
  IpcHandle h;
  std::memcpy(h.bytes.data(), &sh, sizeof sh);
  ++ipc_exports_;
  return h;
}

void* HostDeviceOps::ipc_open(const IpcHandle& h) {
  SimulatedHandle sh;
  std::memcpy(&sh, h.bytes.data(), sizeof sh);
  if (sh.tag != kSimulatedHandleTag)
    throw std::runtime_error("CUDA IPC (simulated): not a handle of this device");
  void* base = reinterpret_cast<void*>(sh.base);
  auto a = device_->table.find(base);
  // Another process's allocation, or another simulated device's in this process (two
  // ends of a test, each with its own default stream): mapped through its memfd.
  if (sh.pid != static_cast<uint64_t>(getpid()) || (!a && sh.fd != ~uint64_t{0}))
    return open_peer(sh.pid, sh.fd, sh.id, sh.size);
  // Like cudaIpcOpenMemHandle on memory its owner freed: the handle is dead.
  if (!a || a->base != base || a->id != sh.id)
    throw std::runtime_error("CUDA IPC (simulated): the exported allocation was freed");
  ++ipc_opens_;
  ++ipc_mapped_;
  return base;
}

// Another process's allocation: its memfd through /proc, checked by name and size (a freed
// allocation's descriptor may have been closed or reused), mapped shared.
void* HostDeviceOps::open_peer(uint64_t pid, uint64_t fd, uint64_t id, uint64_t size) {
  std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  char target[256] = {};
  ssize_t len = readlink(path.c_str(), target, sizeof target - 1);
  std::string want = "/memfd:commbench-sim-" + std::to_string(id) + " ";
  if (len <= 0 || std::string(target, static_cast<size_t>(len)).rfind(want, 0) != 0)
    throw std::runtime_error("CUDA IPC (simulated): the exported allocation was freed");
  int f = open(path.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  if (f < 0 || fstat(f, &st) != 0 || static_cast<uint64_t>(st.st_size) != (size == 0 ? 1 : size)) {
    if (f >= 0) close(f);
    throw std::runtime_error("CUDA IPC (simulated): cannot map the peer's allocation " + path);
  }
  void* m =
      mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  close(f);
  if (m == MAP_FAILED)
    throw std::runtime_error("CUDA IPC (simulated): mmap of the peer's allocation failed");
  peer_maps_[m] = static_cast<size_t>(st.st_size);
  ++ipc_opens_;
  ++ipc_mapped_;
  return m;
}

void HostDeviceOps::ipc_close(void* mapped) noexcept {
  if (auto it = peer_maps_.find(mapped); it != peer_maps_.end()) {
    munmap(mapped, it->second);
    peer_maps_.erase(it);
  }
  if (ipc_mapped_ > 0) --ipc_mapped_;
}

}  // namespace commbench::gpu
