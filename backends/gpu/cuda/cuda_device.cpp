#include "gpu/cuda/cuda_device.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>

#include "gpu/cuda/cuda_schedule.hpp"

namespace commbench::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Records its allocations: CUDA IPC exports whole allocations and must tell a reused
// address from the buffer that was freed there (gpu/allocation_table.hpp).
class DeviceAllocator final : public MemoryAllocator {
 public:
  void* allocate(size_t bytes) override {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky-free error state
      throw std::bad_alloc();
    }
    table_.add(p, bytes);
    return p;
  }
  void deallocate(void* p, size_t) noexcept override {
    table_.remove(p);
    (void)cudaFree(p);
  }
  const gpu::AllocationTable& table() const noexcept { return table_; }

 private:
  gpu::AllocationTable table_;
};

class PinnedAllocator final : public MemoryAllocator {
 public:
  void* allocate(size_t bytes) override {
    void* p = nullptr;
    if (cudaMallocHost(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      throw std::bad_alloc();
    }
    return p;
  }
  void deallocate(void* p, size_t) noexcept override { (void)cudaFreeHost(p); }
};

// COMMBENCH_CUDA_SCHEDULE picks how the host waits in blocking CUDA calls (a blocking
// cudaMemcpy, a stream synchronisation): CUDA's default (auto) spins while the process's
// contexts do not outnumber the cores, else yields; blocking sleeps until an interrupt,
// which a virtual machine may deliver late. Unset = CUDA's default, untouched.
std::optional<unsigned> requested_schedule() {
  const char* v = std::getenv("COMMBENCH_CUDA_SCHEDULE");
  if (!v || !*v) return std::nullopt;
  if (auto flags = schedule_flags(v)) return flags;
  throw std::invalid_argument("COMMBENCH_CUDA_SCHEDULE is auto, spin, yield or blocking, not '" +
                              std::string(v) + "'");
}

class CudaOps final : public gpu::DeviceOps {
 public:
  explicit CudaOps(int device) : device_(device) {
    // The flags belong to the primary context, so they are set as it is created.
    if (auto flags = requested_schedule())
      check(cudaInitDevice(device, *flags, 0), "cudaInitDevice (COMMBENCH_CUDA_SCHEDULE)");
    check(cudaSetDevice(device), "cudaSetDevice");
    unsigned flags = 0;
    check(cudaGetDeviceFlags(&flags), "cudaGetDeviceFlags");
    schedule_ = schedule_name(flags);
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    name_ = "cuda:" + std::to_string(device) + " " + prop.name;
    for (int l = 0; l < kLanes; ++l) {
      check(cudaStreamCreateWithFlags(&streams_[l], cudaStreamNonBlocking), "cudaStreamCreate");
      check(cudaEventCreateWithFlags(&default_marks_[l], cudaEventDisableTiming),
            "cudaEventCreate");
    }
    // cudaStreamLegacy names the legacy default stream even in code built with
    // --default-stream per-thread.
    streams_[kDefaultLane] = cudaStreamLegacy;
    for (int l = 0; l <= kDefaultLane; ++l)
      check(cudaEventCreateWithFlags(&events_[l], cudaEventDisableTiming), "cudaEventCreate");
  }
  ~CudaOps() override {
    for (int l = 0; l <= kDefaultLane; ++l) (void)cudaEventDestroy(events_[l]);
    for (int l = 0; l < kLanes; ++l) {
      (void)cudaEventDestroy(default_marks_[l]);
      (void)cudaStreamDestroy(streams_[l]);
    }
  }

  std::string name() const override { return name_; }
  std::string schedule() const override { return schedule_; }
  MemoryAllocator& device_memory() override { return device_alloc_; }
  MemoryAllocator& pinned_memory() override { return pinned_alloc_; }

  void copy_async(void* dst, const void* src, size_t n, int lane) override {
    check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, streams_[lane]), "cudaMemcpyAsync");
    check(cudaEventRecord(events_[lane], streams_[lane]), "cudaEventRecord");
  }
  bool lane_idle(int lane) override {
    cudaError_t e = cudaEventQuery(events_[lane]);
    if (e == cudaErrorNotReady) return false;
    check(e, "cudaEventQuery");
    return true;
  }
  // On the legacy default stream; from pageable memory it may return before the bytes
  // land (device_ops.hpp), hence order_after_default.
  void copy(void* dst, const void* src, size_t n) override {
    check(cudaMemcpy(dst, src, n, cudaMemcpyDefault), "cudaMemcpy");
  }
  // The lane's stream waits on the device; the host does not.
  void order_after_default(int lane) override {
    if (lane == kDefaultLane) return;  // already in default-stream order
    check(cudaEventRecord(default_marks_[lane], cudaStreamLegacy), "cudaEventRecord");
    check(cudaStreamWaitEvent(streams_[lane], default_marks_[lane], 0), "cudaStreamWaitEvent");
  }
  // events_[lane] stands behind the lane's last copy (copy_async records it); the legacy
  // stream waits for that record as it is now.
  void order_default_after(int lane) override {
    if (lane == kDefaultLane) return;
    check(cudaStreamWaitEvent(cudaStreamLegacy, events_[lane], 0), "cudaStreamWaitEvent");
  }
  void synchronize_default() override {
    check(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize");
  }

  // CUDA IPC: compiled everywhere CUDA is, but so far run on no GPU (see
  // gpu/ipc_handle_cache.hpp for what remains).
  std::optional<gpu::DeviceAllocation> find_allocation(const void* p) override {
    return device_alloc_.table().find(p);
  }
  gpu::IpcHandle ipc_export(void* base) override {
    static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(gpu::IpcHandle::bytes));
    cudaIpcMemHandle_t h;
    check(cudaIpcGetMemHandle(&h, base), "cudaIpcGetMemHandle");
    gpu::IpcHandle out;
    std::memcpy(out.bytes.data(), &h, sizeof h);
    return out;
  }
  void* ipc_open(const gpu::IpcHandle& handle) override {
    cudaIpcMemHandle_t h;
    std::memcpy(&h, handle.bytes.data(), sizeof h);
    void* p = nullptr;
    // Lazy peer access: on one GPU nothing to enable; across GPUs the driver does it.
    check(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    return p;
  }
  void ipc_close(void* mapped) noexcept override { (void)cudaIpcCloseMemHandle(mapped); }

 private:
  int device_;
  std::string name_;
  std::string schedule_;
  DeviceAllocator device_alloc_;
  PinnedAllocator pinned_alloc_;
  cudaStream_t streams_[kDefaultLane + 1]{};  // the last is cudaStreamLegacy, not ours
  cudaEvent_t events_[kDefaultLane + 1]{};    // behind each lane's last copy
  cudaEvent_t default_marks_[kLanes]{};       // recorded on cudaStreamLegacy, waited on by a lane
};

int local_rank() {
  for (const char* v :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "SLURM_LOCALID"})
    if (const char* r = std::getenv(v)) return std::atoi(r);
  return 0;
}

}  // namespace

int device_count(std::string* why_none) noexcept {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (why_none) *why_none = std::string("no usable GPU (") + cudaGetErrorString(e) + ")";
    return 0;
  }
  if (n == 0 && why_none) *why_none = "no GPU found (cudaGetDeviceCount = 0)";
  return n;
}

std::unique_ptr<gpu::DeviceOps> open_device(std::string& why) {
  int n = device_count(&why);
  if (n == 0) return nullptr;
  int dev = local_rank() % n;
  if (const char* d = std::getenv("COMMBENCH_CUDA_DEVICE")) dev = std::atoi(d);
  try {
    auto ops = std::make_unique<CudaOps>(dev);
    set_allocator(MemoryKind::cuda, &ops->device_memory());
    return ops;
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
}

std::string describe_device() {
  std::string why;
  if (device_count(&why) == 0) return why;
  int dev = 0, driver = 0, runtime = 0;
  (void)cudaGetDevice(&dev);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return "unknown device";
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  return std::string(prop.name) + " (cc " + std::to_string(prop.major) + "." +
         std::to_string(prop.minor) + "), driver " + std::to_string(driver) + ", runtime " +
         std::to_string(runtime);
}

}  // namespace commbench::cuda
