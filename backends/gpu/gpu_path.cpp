#include "gpu/gpu_path.hpp"

#include <cstdlib>
#include <stdexcept>

#include "gpu/host_device_ops.hpp"

#ifdef COMMBENCH_HAVE_CUDA
#include "gpu/cuda/cuda_device.hpp"
#endif

namespace commbench::gpu {

std::string_view to_string(GpuPath p) noexcept {
  switch (p) {
    case GpuPath::none:
      return "none";
    case GpuPath::pass_through:
      return "pass-through";
    case GpuPath::staged:
      return "staged";
    case GpuPath::cuda_ipc:
      return "cuda-ipc";
  }
  return "unknown";
}

GpuPath parse_gpu_path(std::string_view s) {
  for (GpuPath p : {GpuPath::none, GpuPath::pass_through, GpuPath::staged, GpuPath::cuda_ipc})
    if (s == to_string(p)) return p;
  throw std::invalid_argument("unknown GPU path '" + std::string(s) +
                              "' (known: auto, pass-through, staged, cuda-ipc)");
}

GpuPath choose_path(std::string_view requested, bool accepts_device) {
  if (requested == "auto") return accepts_device ? GpuPath::pass_through : GpuPath::staged;
  GpuPath p = parse_gpu_path(requested);
  if (p == GpuPath::pass_through && !accepts_device)
    throw std::invalid_argument(
        "--gpu-path pass-through: this library reports no CUDA support at run time (use staged)");
  if (p == GpuPath::none)
    throw std::invalid_argument("--gpu-path none: device memory needs a path");
  return p;
}

namespace {
// Testing aid: COMMBENCH_SIMULATE_GPU=1 stands a HostDeviceOps in for the GPU so CI can
// run the device-memory benchmarks end to end (staging over every backend, validation)
// without one. Its timings mean nothing; metadata says so.
bool simulated() {
  return std::getenv("COMMBENCH_SIMULATE_GPU") != nullptr;
}
}  // namespace

std::string describe_gpu() {
  if (simulated()) return "host-simulated (COMMBENCH_SIMULATE_GPU: testing only, not a GPU)";
#ifdef COMMBENCH_HAVE_CUDA
  return cuda::describe_device();
#else
  return "not built";
#endif
}

namespace {
DeviceOps* opened = nullptr;  // set once device_ops() has opened the device
}  // namespace

std::string device_schedule() {
  return opened ? opened->schedule() : std::string();
}

DeviceOps* device_ops(std::string* why_not) {
  static std::string reason;
  // Never destroyed: its allocator serves MemoryKind::cuda to Storage that may be freed
  // during static destruction, and the CUDA runtime may already be torn down by then.
  static DeviceOps* ops = []() -> DeviceOps* {
    if (simulated()) {
      auto* sim = new HostDeviceOps(2);
      set_allocator(MemoryKind::cuda, &sim->device_memory());
      return sim;
    }
#ifdef COMMBENCH_HAVE_CUDA
    return cuda::open_device(reason).release();
#else
    reason = "this build has no CUDA support (configure where nvcc exists, or -DCOMMBENCH_CUDA=ON)";
    return nullptr;
#endif
  }();
  if (!ops && why_not) *why_not = reason;
  opened = ops;
  return ops;
}

}  // namespace commbench::gpu
