// ucx://host:port — the UCX backend on the UCP tag API: listener (a ucp_listener on a
// socket address, as UCX-Py does), connector and the backend factory.
#pragma once

#include <memory>
#include <vector>

#include "comm/backend_catalog.hpp"
#include "comm/comm.hpp"
#include "ucx/ucx_progress.hpp"  // progress_policies()

namespace commbench::ucx {

std::unique_ptr<Backend> make_ucx_backend(EventLoop& loop, const BackendOptions& options);
// The --backend-opt keys it reads (ucx_err_handling).
std::vector<SettingInfo> backend_settings();

}  // namespace commbench::ucx
