#include "comm/net_interfaces.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>

namespace commbench {

namespace {

bool parse_ipv4(const std::string& s, uint32_t& host_order) {
  in_addr a{};
  if (inet_pton(AF_INET, s.c_str(), &a) != 1) return false;
  host_order = ntohl(a.s_addr);
  return true;
}

uint32_t mask_of(int prefix) {
  if (prefix <= 0) return 0;
  if (prefix >= 32) return 0xffffffffu;
  return ~((1u << (32 - prefix)) - 1);
}

}  // namespace

std::vector<NetInterface> local_ipv4_interfaces() {
  std::vector<NetInterface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    NetInterface n;
    n.name = i->ifa_name;
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    n.address = buf;
    if (i->ifa_netmask)
      n.prefix =
          std::popcount(ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr));
    n.up = (i->ifa_flags & IFF_UP) != 0;
    n.loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
    out.push_back(std::move(n));
  }
  freeifaddrs(list);
  return out;
}

const NetInterface* find_interface(const std::vector<NetInterface>& list,
                                   const std::string& wanted) {
  for (const auto& n : list)
    if (n.name == wanted) return &n;
  for (const auto& n : list)
    if (n.address == wanted) return &n;
  return nullptr;
}

const NetInterface* find_loopback(const std::vector<NetInterface>& list) {
  for (const auto& n : list)
    if (n.loopback && n.up) return &n;
  return nullptr;
}

bool same_subnet(const std::string& network_address, int prefix, const std::string& address) {
  uint32_t a = 0, b = 0;
  if (!parse_ipv4(network_address, a) || !parse_ipv4(address, b)) return false;
  return (a & mask_of(prefix)) == (b & mask_of(prefix));
}

bool is_virtual_bridge(const std::string& name) {
  static const char* prefixes[] = {"docker", "br-",   "virbr", "veth",   "cni",   "flannel", "cali",
                                   "vxlan",  "lxcbr", "lxdbr", "podman", "weave", "kube-"};
  for (const char* p : prefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

std::vector<std::string> rdma_ports() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& dev : std::filesystem::directory_iterator("/sys/class/infiniband", ec))
    for (const auto& port : std::filesystem::directory_iterator(dev.path() / "ports", ec))
      out.push_back(dev.path().filename().string() + ":" + port.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string describe(const std::vector<NetInterface>& list) {
  std::string out;
  for (const auto& n : list)
    out += (out.empty() ? "" : ", ") + n.name + " " + n.address + "/" + std::to_string(n.prefix);
  return out.empty() ? "none" : out;
}

}  // namespace commbench
