#include "comm/address.hpp"

#include <charconv>

#include "comm/errors.hpp"

namespace commbench {

Address parse_address(std::string_view uri) {
  auto pos = uri.find("://");
  if (pos == std::string_view::npos || pos == 0)
    throw AddressError("malformed address '" + std::string(uri) + "' (expected scheme://location)");
  return Address{std::string(uri.substr(0, pos)), std::string(uri.substr(pos + 3))};
}

HostPort parse_host_port(std::string_view loc) {
  std::string_view host, port;
  if (!loc.empty() && loc.front() == '[') {
    auto close = loc.find(']');
    if (close == std::string_view::npos || close + 1 >= loc.size() || loc[close + 1] != ':')
      throw AddressError("malformed address '" + std::string(loc) + "' (expected [v6]:port)");
    host = loc.substr(1, close - 1);
    port = loc.substr(close + 2);
  } else {
    auto colon = loc.rfind(':');
    if (colon == std::string_view::npos)
      throw AddressError("malformed address '" + std::string(loc) + "' (expected host:port)");
    host = loc.substr(0, colon);
    port = loc.substr(colon + 1);
  }
  if (host.empty()) throw AddressError("address '" + std::string(loc) + "' has no host");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || port.empty() || value > 65535)
    throw AddressError("bad port in address '" + std::string(loc) + "'");
  return HostPort{std::string(host), static_cast<uint16_t>(value)};
}

HostPort parse_host_port_uri(std::string_view uri, std::string_view scheme) {
  Address a = parse_address(uri);
  if (a.scheme != scheme)
    throw AddressError("not a " + std::string(scheme) + " address: '" + std::string(uri) + "'");
  return parse_host_port(a.location);
}

std::string format_host_port(const std::string& host, uint16_t port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

}  // namespace commbench
