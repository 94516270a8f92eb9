// The UCX backend's progress policies: one table, read by parse_progress, to_string and
// the registry, so --list-backends shows exactly what is accepted and which policy an
// empty --progress selects. How each drives the worker (ucx_worker.hpp; the loop's side
// in ucx_engine.hpp):
//
//   polling      a Poller registered with the loop calls ucp_worker_progress every turn
//                while anything waits on the worker (UCX-Py's polling mode); it never
//                arms, so an idle loop naps with back-off;
//   event        the worker's event fd sits in the loop's epoll; progress runs only after
//                the fd fired or ucp_worker_arm said BUSY, and the loop arms and sleeps as
//                soon as a turn finds nothing to do (UCX-Py's blocking mode);
//   cooperative  no engine: every waiting coroutine calls ucp_worker_progress itself and
//                yields between tries (MPI4Dask's `while not req.Test(): await sleep(0)`);
//                while no other coroutine is ready it makes a few tries per yield.
//   thread       a ProgressThread calls ucp_worker_progress back to back (UCXX's polling
//                progress thread); the worker runs in UCS_THREAD_MODE_MULTI, since the
//                loop's thread posts requests while the progress thread progresses, and
//                each completion is handed to the loop through a Handoff;
//   thread-blocking  the same thread progresses until idle, arms the worker and sleeps
//                on its fd; a request the loop posts while it sleeps signals the worker
//                (ucp_worker_signal), since nothing else would wake it to progress that.
#pragma once

#include <string>
#include <vector>

#include "comm/backend_catalog.hpp"

namespace commbench::ucx {

// `control` is not a user choice: it is the per-loop worker of listeners and
// connection-manager endpoints (see EndpointState), progressed on its event fd and,
// while connections are open, once every kControlPollEvery turns (ucx_engine.cpp).
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
