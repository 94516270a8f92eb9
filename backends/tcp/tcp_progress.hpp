// tcp's progress policies: one table that the backend's parser reads and the registry lists.
// Connection setup (listen, accept, connect) waits on epoll readiness under both: only the
// data path differs (tcp_comm.hpp).
#pragma once

#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"

namespace commbench::tcp {

enum class Progress { epoll, uring };

// The user's choices; first = the default. uring only where liburing was found at build
// time (backends/tcp/CMakeLists.txt).
inline constexpr PolicyEntry<Progress> kProgressPolicies[] = {
    {Progress::epoll, "epoll",
     "non-blocking sockets whose readiness comes from the event loop's epoll"},
#if COMMBENCH_HAVE_URING
    {Progress::uring, "uring",
     "sends and receives submitted to one io_uring per backend, resumed from its "
     "completions (the ring's eventfd wakes the loop's epoll)"},
#endif
};

// The table as the registry lists it (the backend parses with parse_policy on the table).
std::vector<PolicyInfo> progress_policies();

}  // namespace commbench::tcp
