#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <stdexcept>
#include <string>

#include "workloads/cuda/merge_gpu.hpp"

namespace commbench::app::gpu {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct PartitionOf {
  uint32_t parts;
  __host__ __device__ uint32_t operator()(int64_t k) const { return partition_of(k, parts); }
};

// Thread i writes probe row i's matches: build rows [lo[i], hi[i]) of the sorted side.
__global__ void emit_matches(const int64_t* __restrict__ probe_keys,
                             const int64_t* __restrict__ probe_payload,
                             const int64_t* __restrict__ build_payload,
                             const size_t* __restrict__ lo, const size_t* __restrict__ hi,
                             const size_t* __restrict__ at, size_t rows,
                             int64_t* __restrict__ out_keys, int64_t* __restrict__ out_build,
                             int64_t* __restrict__ out_probe) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    size_t o = at[i];
    for (size_t j = lo[i]; j < hi[i]; ++j, ++o) {
      out_keys[o] = probe_keys[i];
      out_build[o] = build_payload[j];
      out_probe[o] = probe_payload[i];
    }
  }
}

}  // namespace

std::vector<size_t> hash_partition(const int64_t* keys, const int64_t* payload, size_t rows,
                                   uint32_t parts, int64_t* out_keys, int64_t* out_payload) {
  if (parts == 0) throw std::invalid_argument("hash_partition: zero partitions");
  std::vector<size_t> offsets(parts + 1, 0);
  if (rows == 0) return offsets;
  auto k = thrust::device_pointer_cast(keys);
  auto p = thrust::device_pointer_cast(payload);
  thrust::device_vector<uint32_t> pid(rows);
  thrust::device_vector<size_t> order(rows);
  thrust::transform(k, k + rows, pid.begin(), PartitionOf{parts});
  thrust::sequence(order.begin(), order.end());
  // Stable: rows keep their order within a partition, as a host partitioner's would.
  thrust::stable_sort_by_key(pid.begin(), pid.end(), order.begin());
  thrust::gather(order.begin(), order.end(), k, thrust::device_pointer_cast(out_keys));
  thrust::gather(order.begin(), order.end(), p, thrust::device_pointer_cast(out_payload));
  thrust::device_vector<size_t> starts(parts);
  thrust::lower_bound(pid.begin(), pid.end(), thrust::counting_iterator<uint32_t>(0),
                      thrust::counting_iterator<uint32_t>(parts), starts.begin());
  thrust::copy(starts.begin(), starts.end(), offsets.begin());
  offsets[parts] = rows;
  check(cudaDeviceSynchronize(), "hash_partition");
  return offsets;
}

struct DeviceJoin::Impl {
  thrust::device_vector<int64_t> keys, payload;  // sorted by key
  thrust::device_vector<size_t> lo, hi, at;      // per probe row
  size_t total = 0;

  void bounds(const int64_t* probe_keys, size_t rows) {
    auto pk = thrust::device_pointer_cast(probe_keys);
    lo.resize(rows);
    hi.resize(rows);
    at.resize(rows);
    thrust::lower_bound(keys.begin(), keys.end(), pk, pk + rows, lo.begin());
    thrust::upper_bound(keys.begin(), keys.end(), pk, pk + rows, hi.begin());
    thrust::transform(hi.begin(), hi.end(), lo.begin(), at.begin(), thrust::minus<size_t>());
    size_t last = rows ? static_cast<size_t>(at.back()) : 0;
    thrust::exclusive_scan(at.begin(), at.end(), at.begin());
    total = rows ? static_cast<size_t>(at.back()) + last : 0;
  }
};

DeviceJoin::DeviceJoin(const int64_t* build_keys, const int64_t* build_payload, size_t rows)
    : impl_(std::make_unique<Impl>()) {
  auto k = thrust::device_pointer_cast(build_keys);
  auto p = thrust::device_pointer_cast(build_payload);
  impl_->keys.assign(k, k + rows);
  impl_->payload.assign(p, p + rows);
  thrust::stable_sort_by_key(impl_->keys.begin(), impl_->keys.end(), impl_->payload.begin());
}

DeviceJoin::~DeviceJoin() = default;

size_t DeviceJoin::count(const int64_t* probe_keys, size_t rows) {
  impl_->bounds(probe_keys, rows);
  return impl_->total;
}

size_t DeviceJoin::materialize(const int64_t* probe_keys, const int64_t* probe_payload, size_t rows,
                               int64_t* out_keys, int64_t* out_build_payload,
                               int64_t* out_probe_payload) {
  impl_->bounds(probe_keys, rows);
  if (rows == 0) return 0;
  unsigned threads = 256;
  unsigned blocks = static_cast<unsigned>(std::min<size_t>((rows + threads - 1) / threads, 65535));
  emit_matches<<<blocks, threads>>>(
      probe_keys, probe_payload, thrust::raw_pointer_cast(impl_->payload.data()),
      thrust::raw_pointer_cast(impl_->lo.data()), thrust::raw_pointer_cast(impl_->hi.data()),
      thrust::raw_pointer_cast(impl_->at.data()), rows, out_keys, out_build_payload,
      out_probe_payload);
  check(cudaGetLastError(), "emit_matches launch");
  check(cudaDeviceSynchronize(), "emit_matches");
  return impl_->total;
}

}  // namespace commbench::app::gpu
