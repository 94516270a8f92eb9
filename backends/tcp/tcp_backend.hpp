// tcp://host:port — the TCP backend: listener, connector and the backend factory.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"
#include "tcp/tcp_progress.hpp"  // progress_policies()

namespace commbench::tcp {

// Descriptors a connector leaves free: it refuses, with one line naming RLIMIT_NOFILE, once
// fewer are left. Why: an accept() that meets EMFILE can only back off and retry, and the
// peer waiting for its hello then fails at its connect timeout with no word of the limit.
// Stopping our own connects a little early keeps room for the accepts of the connections
// this process is a party to (both ends in one process, or a peer's connect racing ours).
inline constexpr size_t kDescriptorReserve = 16;

std::unique_ptr<Backend> make_tcp_backend(EventLoop& loop, const BackendOptions& options);
// The --backend-opt keys it reads (uring_taskrun, where tcp:uring is built).
std::vector<SettingInfo> backend_settings();

}  // namespace commbench::tcp
