// The CUDA device behind gpu::DeviceOps: cudaMalloc device memory, cudaMallocHost pinned
// memory, one non-blocking stream and one event per copy lane. Host code only (the CUDA
// runtime API), compiled by the C++ compiler; kernels live in .cu files elsewhere.
#pragma once

#include <memory>
#include <string>

#include "gpu/device_ops.hpp"

namespace commbench::cuda {

// Number of CUDA devices visible, 0 when there is no GPU or no driver (never throws).
int device_count(std::string* why_none = nullptr) noexcept;

// Opens device (local rank % count) unless COMMBENCH_CUDA_DEVICE names one, installs its
// allocator for MemoryKind::cuda, and returns it; nullptr with `why` when unavailable.
std::unique_ptr<gpu::DeviceOps> open_device(std::string& why);

// Text for metadata: "NVIDIA H100 80GB HBM3 (cc 9.0), driver 13000, runtime 13000".
std::string describe_device();

}  // namespace commbench::cuda
