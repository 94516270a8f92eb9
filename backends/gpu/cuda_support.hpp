// Run-time questions to the communication libraries: do they take CUDA device pointers?
// A backend answers Backend::accepts_device_memory() with these, and the GPU layer then
// passes device frames through instead of staging them. Debian's Open MPI, MPICH and UCX
// are built without CUDA, so all of these say no there.
//
// Test-only seam: COMMBENCH_FAKE_CUDA_AWARE=mpi, =ucx or =mpi,ucx makes the named
// library answer yes (once it is initialized) whatever it says, so the pass-through
// code is exercised on machines whose libraries are not CUDA-aware, with
// COMMBENCH_SIMULATE_GPU's host "device" memory. Never set it with a real GPU: the
// library would then be handed device pointers it cannot read.
#pragma once

#include <ucp/api/ucp.h>

namespace commbench::gpu {

// Open MPI: MPIX_Query_cuda_support() (when mpi-ext.h says the build has the
// extension); MPICH: MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA). Call after MPI_Init
// (false before).
bool mpi_reports_cuda_support() noexcept;

// UCX: the context's supported memory types include UCS_MEMORY_TYPE_CUDA (ucp_context_query).
bool ucx_reports_cuda_support(ucp_context_h context) noexcept;

// Whether COMMBENCH_FAKE_CUDA_AWARE names `library` ("mpi" or "ucx").
bool cuda_support_faked(const char* library) noexcept;

}  // namespace commbench::gpu
