#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "workloads/cuda/transpose_add_gpu.hpp"

namespace commbench::app::gpu {

namespace {

constexpr int kTile = 32;        // one warp wide
constexpr int kRowsPerPass = 8;  // a 32 x 8 thread block covers a tile in 4 passes

// One 32 x 32 tile of y per thread block. Reading b^T straight from global memory would
// make a warp touch 32 rows of b (uncoalesced); instead the warp reads a row segment of
// b (coalesced) into shared memory and then reads the tile's column out of shared
// memory. The +1 column of padding keeps those column reads free of bank conflicts.
// a and y are read and written along rows, coalesced as they are.
__global__ void transpose_add_kernel(double* __restrict__ y, const double* __restrict__ a,
                                     const double* __restrict__ b, size_t rows, size_t cols) {
  __shared__ double tile[kTile][kTile + 1];
  size_t tile_r = static_cast<size_t>(blockIdx.y) * kTile;  // y rows = b columns
  size_t tile_c = static_cast<size_t>(blockIdx.x) * kTile;  // y columns = b rows
  int tx = threadIdx.x, ty = threadIdx.y;

  // b rows tile_c.., columns tile_r..: b is cols x rows.
  for (int i = ty; i < kTile; i += kRowsPerPass) {
    size_t br = tile_c + i, bc = tile_r + tx;
    if (br < cols && bc < rows) tile[i][tx] = b[br * rows + bc];
  }
  __syncthreads();
  for (int i = ty; i < kTile; i += kRowsPerPass) {
    size_t r = tile_r + i, c = tile_c + tx;
    if (r < rows && c < cols) y[r * cols + c] = a[r * cols + c] + tile[tx][i];
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

void transpose_add(double* y, const double* a, const double* b, size_t rows, size_t cols,
                   void* stream) {
  if (rows == 0 || cols == 0) return;
  dim3 block(kTile, kRowsPerPass);
  dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile),
            static_cast<unsigned>((rows + kTile - 1) / kTile));
  transpose_add_kernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(y, a, b, rows, cols);
  check(cudaGetLastError(), "transpose_add launch");
}

void synchronize(void* stream) {
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

}  // namespace commbench::app::gpu
