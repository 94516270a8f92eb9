// tcp://host:port — the TCP backend: listener, connector and the backend factory.
#pragma once

#include <memory>

#include "comm/comm.hpp"

namespace commbench::tcp {

std::unique_ptr<Backend> make_tcp_backend(EventLoop& loop, const BackendOptions& options);

}  // namespace commbench::tcp
