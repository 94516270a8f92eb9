// The UCX backend's progress policies (ucx_worker.hpp has the details). One table, read by
// parse_progress, to_string and the registry, so --list-backends shows exactly what is
// accepted and which policy an empty --progress selects.
#pragma once

#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"

namespace commbench::ucx {

// `control` is not a user choice: it is the per-loop worker of listeners and
// connection-manager endpoints (see EndpointState), progressed on its event fd and,
// while connections are open, once every kControlPollEvery turns.
enum class Progress { polling, event, cooperative, thread, thread_blocking, control };

// The user's choices; first = the default (the measured best).
inline constexpr PolicyEntry<Progress> kProgressPolicies[] = {
    {Progress::cooperative, "cooperative",
     "the waiting coroutine calls ucp_worker_progress itself and yields between tries "
     "(MPI4Dask's design)"},
    {Progress::polling, "polling",
     "a poller progresses the worker every loop turn while anything waits (UCX-Py's "
     "polling mode)"},
    {Progress::event, "event",
     "the worker's event fd in the loop's epoll, ucp_worker_arm before sleeping (UCX-Py's "
     "blocking mode)"},
    {Progress::thread, "thread",
     "a dedicated progress thread calls ucp_worker_progress back to back and hands "
     "completions to the loop through a lock-free queue (UCXX's polling progress thread)",
     false, PolicyThread::polling},
    {Progress::thread_blocking, "thread-blocking",
     "a dedicated progress thread progresses until idle, then sleeps on the worker's fd "
     "(ucp_worker_arm); completions reach the loop as with thread (UCXX's blocking mode)",
     false, PolicyThread::blocking},
};

// "" = the default; throws std::invalid_argument naming the accepted policies.
Progress parse_progress(const std::string& name);
const char* to_string(Progress p) noexcept;
std::vector<PolicyInfo> progress_policies();

}  // namespace commbench::ucx
