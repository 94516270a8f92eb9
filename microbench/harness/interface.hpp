// Which address this rank listens on: --interface takes an interface name (eth0, ib0)
// or an IP address; without it, the first non-loopback IPv4 interface that is up, and
// 127.0.0.1 only when there is none. Throws std::invalid_argument naming the interfaces.
#pragma once

#include <string>

namespace commbench {

std::string listen_host(const std::string& interface_or_ip);

}  // namespace commbench
