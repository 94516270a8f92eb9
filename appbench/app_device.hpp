// Where the application benchmarks keep their data (--memory host | cuda) and the few
// steps a workload needs to keep it on a device: make a block there from a host one, copy
// one back for an untimed check, and know which kernels to run. The runtime
// (distributed/) sees only Values whose parts carry a memory kind; the comm path for
// device frames (staged or pass-through) is the session's (app_session.cpp).
//
// Which kernels: on a GPU the CUDA kernels of workloads/cuda; on the simulated device
// (COMMBENCH_SIMULATE_GPU) device memory is host memory, so the host kernels run on it,
// after a default-stream synchronisation (what a CUDA kernel launched on the default
// stream is ordered after), and their results are copied into fresh device memory with
// copy() -- which on the simulated device lands late, as cudaMemcpy may, so the comm's
// ordering after the default stream is exercised by every app run in CI.
#pragma once

#include <string>

#include "distributed/value.hpp"
#include "gpu/gpu_path.hpp"

namespace commbench::app {

struct AppDevice {
  ::commbench::gpu::DeviceOps* ops = nullptr;  // null: the data is in host memory
  bool simulated = false;                      // host kernels on host-backed device memory
  // Pass-through hands device buffers to a library that is not stream-ordered: work on
  // the default stream must have finished before a block can be sent.
  bool sync_before_send = false;
  ::commbench::gpu::GpuPath path = ::commbench::gpu::GpuPath::none;

  bool on_device() const noexcept { return ops != nullptr; }
  // The CUDA kernels run (a real device), as opposed to the host ones.
  bool cuda_kernels() const noexcept { return ops != nullptr && !simulated; }
  MemoryKind kind() const noexcept { return ops ? MemoryKind::cuda : MemoryKind::host; }
  std::string memory_name() const { return ops ? "cuda" : "host"; }

  // A copy of host value `v` in device memory, same part sizes and order (one
  // allocation); `v` itself for host memory.
  Value to_device(Value v) const;
  // A host copy of `v` (complete when it returns); `v` itself when it is in host memory.
  Value to_host(Value v) const;
  // Before host code reads device memory written on the default stream (simulated device)
  // or before device memory is handed to a library that is not stream-ordered.
  void synchronize() const;
};

}  // namespace commbench::app
