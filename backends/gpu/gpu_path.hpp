// How device memory crosses a comm (the CSV column gpu_path), and this process's device.
#pragma once

#include <string>
#include <string_view>

#include "gpu/device_ops.hpp"

namespace commbench::gpu {

enum class GpuPath {
  none,          // host memory only
  pass_through,  // device pointers handed to a CUDA-aware library
  staged,        // StagedComm: pipelined copies through pinned host buffers
  cuda_ipc,      // same-node device-to-device through CUDA IPC handles
};

std::string_view to_string(GpuPath p) noexcept;
// "auto" is not a path: callers resolve it with choose_path. Throws std::invalid_argument.
GpuPath parse_gpu_path(std::string_view s);

// `requested` = "auto" | a path name. auto = pass-through when the backend takes device
// pointers, else staged. Throws std::invalid_argument (one line) for a path that cannot
// work: pass-through on a library without CUDA support. cuda-ipc works over any backend
// between processes that share a node (CudaIpcComm) and is only taken when asked for.
GpuPath choose_path(std::string_view requested, bool backend_accepts_device_memory);

// The device of this process (the CUDA device, chosen by local rank when there are
// several), or nullptr with the reason in `why_not` (no CUDA in this build, no GPU or
// driver). On success the device allocator serves MemoryKind::cuda from then on.
DeviceOps* device_ops(std::string* why_not = nullptr);

// For run metadata: GPU model, compute capability, driver and runtime versions, or why
// there is none ("not built" without CUDA).
std::string describe_gpu();

// The opened device's scheduling mode (DeviceOps::schedule), or "" when this process has
// not opened one (host memory runs): for the sidecar.
std::string device_schedule();

}  // namespace commbench::gpu
