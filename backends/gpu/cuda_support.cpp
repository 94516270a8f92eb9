#include "gpu/cuda_support.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string_view>
#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // defines MPIX_CUDA_AWARE_SUPPORT and MPIX_Query_cuda_support
#endif

namespace commbench::gpu {

bool cuda_support_faked(const char* library) noexcept {
  const char* v = std::getenv("COMMBENCH_FAKE_CUDA_AWARE");
  if (!v) return false;
  std::string_view list(v), want(library);
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == want) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

bool mpi_reports_cuda_support() noexcept {
  int initialized = 0;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized) return false;
  if (cuda_support_faked("mpi")) return true;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPICH_VERSION) && defined(MPIX_GPU_SUPPORT_CUDA)
  int yes = 0;
  return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes != 0;
#else
  return false;  // the library has no way to say so: assume host memory only
#endif
}

bool ucx_reports_cuda_support(ucp_context_h context) noexcept {
  if (!context) return false;
  if (cuda_support_faked("ucx")) return true;
  ucp_context_attr_t attr{};
  attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (ucp_context_query(context, &attr) != UCS_OK) return false;
  return (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
}

}  // namespace commbench::gpu
