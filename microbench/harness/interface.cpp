#include "harness/interface.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <stdexcept>
#include <vector>

namespace commbench {

namespace {
bool is_ip(const std::string& s) {
  in_addr a4;
  in6_addr a6;
  return inet_pton(AF_INET, s.c_str(), &a4) == 1 || inet_pton(AF_INET6, s.c_str(), &a6) == 1;
}
}  // namespace

std::string listen_host(const std::string& wanted) {
  if (!wanted.empty() && is_ip(wanted)) return wanted;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "127.0.0.1";
  std::string found;
  std::vector<std::string> names;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    names.push_back(i->ifa_name);
    bool up = (i->ifa_flags & IFF_UP) != 0;
    bool loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
    bool match = wanted.empty() ? (up && !loopback) : wanted == i->ifa_name;
    if (match && found.empty()) {
      char buf[INET_ADDRSTRLEN];
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
      found = buf;
    }
  }
  freeifaddrs(list);
  if (!found.empty()) return found;
  if (wanted.empty()) return "127.0.0.1";
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("no IPv4 interface named '" + wanted + "' (known: " + known + ")");
}

}  // namespace commbench
