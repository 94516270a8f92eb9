// transpose-sum on the GPU: y = a + b^T for one block, the device twin of
// workloads/transpose_kernels.hpp's transpose_add_rows (a and y are rows x cols, b is
// cols x rows, all row-major, all device memory). Callable from plain C++; the kernel is
// in transpose_add_gpu.cu.
#pragma once

#include <cstddef>

namespace commbench::app::gpu {

// Enqueues the kernel on `stream` (a cudaStream_t; nullptr = the default stream) and
// returns; throws std::runtime_error when the launch fails.
void transpose_add(double* y, const double* a, const double* b, size_t rows, size_t cols,
                   void* stream = nullptr);
// Waits for `stream`; throws with the CUDA error of any kernel that failed on it.
void synchronize(void* stream = nullptr);

}  // namespace commbench::app::gpu
