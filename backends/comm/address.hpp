// Addresses are URIs: scheme://location. The scheme picks the backend in the registry;
// each backend parses its own location (tcp/ucx: host:port, mpi: rank[:service]).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace commbench {

struct Address {
  std::string scheme;
  std::string location;
  std::string str() const { return scheme + "://" + location; }
};

// Throws AddressError for a string without "scheme://".
Address parse_address(std::string_view uri);

struct HostPort {
  std::string host;
  uint16_t port = 0;
};

// "host:port" or "[v6]:port"; port 0 means "any free port" to a listener. Throws AddressError.
HostPort parse_host_port(std::string_view location);
// The host:port of `uri`, which must be `scheme`://host:port ("not a tcp address: '...'"
// otherwise). Throws AddressError.
HostPort parse_host_port_uri(std::string_view uri, std::string_view scheme);
std::string format_host_port(const std::string& host, uint16_t port);

}  // namespace commbench
