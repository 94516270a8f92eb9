// UCX and the process's descriptor limit (RLIMIT_NOFILE): UCX's per-worker cap on
// asynchronous event handlers (UCX_ASYNC_MAX_EVENTS) sized from it, and the refusal of
// new connections a little before it.
#pragma once

#include <cstddef>
#include <string>

namespace commbench::ucx {

// Raises UCX's ASYNC_MAX_EVENTS to the process's RLIMIT_NOFILE hard limit (capped at
// 1 Mi) unless the user set UCX_ASYNC_MAX_EVENTS; once per process, before the first
// worker (ucx_fd_limit.cpp says why). Returns the cap in force.
unsigned size_async_events();

// Descriptors kept free: a connection is refused once fewer are left (ucx_fd_limit.cpp).
inline constexpr size_t kDescriptorReserve = 64;
// How many more descriptors this process may open before RLIMIT_NOFILE (exact when fewer
// than 2 * kDescriptorReserve are left; SIZE_MAX when unlimited).
size_t descriptors_left();
// The one line a connection refused for want of descriptors reads: `what`, how many are
// open, the limit, and what raises it.
std::string descriptor_limit_message(const std::string& what);

}  // namespace commbench::ucx
