// Run-time questions to the communication libraries: do they take CUDA device pointers?
// A backend answers Backend::accepts_device_memory() with these, and the GPU layer then
// passes device frames through instead of staging them. Debian's Open MPI, MPICH and UCX
// are built without CUDA, so all of these say no there.
#pragma once

#include <ucp/api/ucp.h>

namespace commbench::gpu {

// Open MPI: MPIX_Query_cuda_support() (when mpi-ext.h says the build has the
// extension); MPICH: MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA). Call after MPI_Init.
bool mpi_reports_cuda_support() noexcept;

// UCX: the context's supported memory types include UCS_MEMORY_TYPE_CUDA (ucp_context_query).
bool ucx_reports_cuda_support(ucp_context_h context) noexcept;

}  // namespace commbench::gpu
