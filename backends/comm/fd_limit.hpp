// The process's descriptor limit (RLIMIT_NOFILE), as every backend that opens sockets
// meets it: how many are open, raising the soft limit, and the one line a run that hits
// it ends with. ucx/ucx_fd_limit.hpp adds what is UCX's own (its event cap, its reserve).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace commbench {

// Descriptors this process has open (entries of /proc/self/fd; 0 if unreadable).
size_t open_descriptors();

// How many more descriptors this process may open before RLIMIT_NOFILE: exact when fewer
// than `exact_below` are left, else at least that many; SIZE_MAX when unlimited.
size_t descriptors_left(size_t exact_below);

struct DescriptorLimit {
  long long soft = -1;  // -1: unlimited
  long long hard = -1;
};
DescriptorLimit descriptor_limit();
// A limit as the error lines print it: the number, or "unlimited".
std::string limit_text(long long v);

// Raises the soft RLIMIT_NOFILE to the hard limit, once per process (fd_limit.cpp says
// why); returns the limit before the call. A later call changes nothing.
DescriptorLimit raise_descriptor_limit();

// The line a connection refused for want of descriptors reads: `what`, how many are
// open, the limit, how many the backend keeps free (`kept_free`, 0: none), and what
// raises it.
std::string descriptor_limit_message(const std::string& what, size_t kept_free = 0);

}  // namespace commbench
