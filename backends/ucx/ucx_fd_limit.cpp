#include "ucx/ucx_fd_limit.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <ucs/config/global_opts.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "comm/errors.hpp"
#include "comm/fd_limit.hpp"

namespace commbench::ucx {

namespace {

// An upper bound on the cap: Linux's default fs.nr_open, the most any process can open
// without that sysctl raised. UCX allocates 4 bytes per allowed event per worker (the
// ring of missed events), so an unlimited hard limit must not become gigabytes.
constexpr rlim_t kMaxEvents = rlim_t{1} << 20;

}  // namespace

// Why: UCX counts the event handlers of each worker's async context (one per socket its
// transports and connection manager watch, a few per connection) against the global
// option ASYNC_MAX_EVENTS, 1,024 by default. Past it ucs_async_set_event_handler fails
// with UCS_ERR_EXCEEDS_LIMIT, and UCX 1.13's TCP connection manager mishandles that
// failure: it closes the socket twice ("sock.c:63 failed to close fd N: Bad file
// descriptor") and later aborts on a corrupted heap inside ucp_worker_progress. That was
// the ~1,000-connection crash (load_test.cpp). Every handler needs a descriptor, so a cap
// equal to the descriptor limit can never be reached first: the process runs out of
// descriptors instead, which UCX reports as an ordinary error on that one connection.
//
// The hard limit, not the soft one: a process may raise its soft limit at any time (the
// load tests do, after the backend exists), and the cap must be in place before the first
// worker. ucs_global_opts is read when each worker is created (the missed-event ring is
// sized then) and at each handler registration, so it is set once, before our first
// ucp_init, and never changed afterwards: lowering it under a live worker could strand
// handlers, raising it could outgrow a ring already allocated.
//
// ASYNC_MAX_EVENTS is a UCS global option, not a UCP context option. UCX 1.13's
// ucp_config_modify accepts the name but, finding no such context field, writes the UCS
// global at once (tried: 1,024 -> 5,000 before any ucp_init); the environment variable
// is read only by libucs's constructor, before main() (a setenv before ucp_config_read and
// ucp_init left it at 1,024). ucs_global_opts_set_value (ucs/config/global_opts.h) says
// plainly what happens, so it is used here.
unsigned size_async_events() {
  static const unsigned applied = [] {
    if (std::getenv("UCX_ASYNC_MAX_EVENTS") != nullptr) return ucs_global_opts.async_max_events;
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return ucs_global_opts.async_max_events;
    rlim_t want = rl.rlim_max == RLIM_INFINITY ? kMaxEvents : std::min(rl.rlim_max, kMaxEvents);
    if (want > ucs_global_opts.async_max_events) {
      ucs_status_t s = ucs_global_opts_set_value("ASYNC_MAX_EVENTS", std::to_string(want).c_str());
      if (s != UCS_OK)
        throw CommError(std::string("ucs_global_opts_set_value(ASYNC_MAX_EVENTS): ") +
                        ucs_status_string(s));
    }
    return ucs_global_opts.async_max_events;
  }();
  return applied;
}

// Why a reserve: UCX 1.13 does not survive running out of descriptors. Its TCP listener's
// accept() failing with EMFILE left a handler behind whose descriptor number was reused,
// then "failed to close fd N: Bad file descriptor" and "Assertion `listen_fd ==
// iface->listen_fd' failed" in ucp_worker_progress (UcxDescriptorLimit before this
// guard, 1 run of 2 aborted). So both ends refuse while descriptors are still left: a
// connector before it makes an endpoint, a listener before it answers a request (the
// request's socket is closed by the reject). 64 leaves room for the few a connection
// takes (its connection-manager socket, TCP data lanes, the peer's accept when both
// ends share the process) and for UCX's async thread accepting a burst meanwhile.
//
size_t descriptors_left() {
  return commbench::descriptors_left(2 * kDescriptorReserve);
}

std::string descriptor_limit_message(const std::string& what) {
  return commbench::descriptor_limit_message(what, kDescriptorReserve);
}

}  // namespace commbench::ucx
