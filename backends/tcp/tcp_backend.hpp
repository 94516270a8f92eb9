// tcp://host:port — the TCP backend: listener, connector and the backend factory.
#pragma once

#include <memory>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"

namespace commbench::tcp {

std::unique_ptr<Backend> make_tcp_backend(EventLoop& loop, const BackendOptions& options);
// Its policies: epoll (socket readiness from the loop's epoll, the default) and, when built
// with liburing, uring (sends and receives as io_uring SQEs; README.md).
std::vector<PolicyInfo> progress_policies();
// The --backend-opt keys it reads (uring_taskrun, where tcp:uring is built).
std::vector<SettingInfo> backend_settings();

}  // namespace commbench::tcp
