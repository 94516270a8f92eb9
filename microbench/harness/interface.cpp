#include "harness/interface.hpp"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace commbench {

namespace {

bool is_ip(const std::string& s) {
  in_addr a4;
  in6_addr a6;
  return inet_pton(AF_INET, s.c_str(), &a4) == 1 || inet_pton(AF_INET6, s.c_str(), &a6) == 1;
}

// A usable address of `peer` in our interface's subnet. The same address on both sides
// is no reach: it is a host-local network that every host numbers alike.
bool reaches(const NetInterface& ours, const HostInterfaces& peer) {
  for (const auto& theirs : peer.interfaces)
    if (theirs.up && !theirs.loopback && theirs.address != ours.address &&
        same_subnet(ours.address, ours.prefix, theirs.address))
      return true;
  return false;
}

std::string host_list(const std::vector<HostInterfaces>& hosts) {
  std::string out;
  for (const auto& h : hosts) {
    std::vector<NetInterface> usable;
    for (const auto& n : h.interfaces)
      if (n.up && !n.loopback) usable.push_back(n);
    out += (out.empty() ? "" : "; ") + h.host + ": " + describe(usable);
  }
  return out;
}

}  // namespace

InterfaceRequest interface_request(const std::string& option_value) {
  if (!option_value.empty()) return {option_value, "--interface"};
  const char* env = std::getenv("COMMBENCH_INTERFACE");
  if (env && *env) return {env, "COMMBENCH_INTERFACE"};
  return {};
}

std::string encode_host_interfaces(const HostInterfaces& h) {
  std::string out = h.host + "\n";
  for (const auto& n : h.interfaces)
    out += n.name + " " + n.address + " " + std::to_string(n.prefix) + " " + (n.up ? "1" : "0") +
           " " + (n.loopback ? "1" : "0") + "\n";
  return out;
}

HostInterfaces decode_host_interfaces(const std::string& text) {
  std::istringstream in(text);
  HostInterfaces h;
  std::getline(in, h.host);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    NetInterface n;
    int up = 0, lo = 0;
    if (f >> n.name >> n.address >> n.prefix >> up >> lo) {
      n.up = up != 0;
      n.loopback = lo != 0;
      h.interfaces.push_back(std::move(n));
    }
  }
  return h;
}

InterfaceChoice choose_interface(const InterfaceRequest& request,
                                 const std::vector<NetInterface>& mine,
                                 const std::vector<HostInterfaces>& other_hosts) {
  InterfaceChoice c;
  c.requested = request.value;
  if (!request.value.empty()) {
    c.how = request.source.empty() ? "--interface" : request.source;
    if (const NetInterface* n = find_interface(mine, request.value)) {
      c.name = n->name;
      c.address = n->address;
      return c;
    }
    // An IP this host does not hold (or IPv6): the listener binds it and says why not.
    if (is_ip(request.value)) {
      c.address = request.value;
      return c;
    }
    throw std::invalid_argument("no IPv4 interface named '" + request.value +
                                "' (known: " + describe(mine) + ")");
  }
  if (other_hosts.empty()) {
    const NetInterface* lo = find_loopback(mine);
    c.name = lo ? lo->name : "lo";
    c.address = "127.0.0.1";
    c.how = "single host: loopback";
    return c;
  }
  std::vector<const NetInterface*> good;
  std::vector<std::string> bridges;
  for (const auto& n : mine) {
    if (!n.up || n.loopback) continue;
    bool all = std::all_of(other_hosts.begin(), other_hosts.end(),
                           [&](const HostInterfaces& h) { return reaches(n, h); });
    if (!all) continue;
    if (is_virtual_bridge(n.name)) {
      bridges.push_back(n.name);
      continue;
    }
    // An interface with two addresses in reach counts once (its first).
    if (std::none_of(good.begin(), good.end(), [&](auto* g) { return g->name == n.name; }))
      good.push_back(&n);
  }
  if (good.size() == 1) {
    c.name = good[0]->name;
    c.address = good[0]->address;
    c.how = "subnet of peers";
    return c;
  }
  if (good.empty()) {
    std::string msg = "cannot choose the interface to listen on: no local IPv4 interface (" +
                      describe(mine) + ") shares a subnet with every other host (" +
                      host_list(other_hosts) + ")";
    if (!bridges.empty()) {
      std::string b;
      for (const auto& n : bridges) b += (b.empty() ? "" : ", ") + n;
      msg += "; container/VM bridges not taken by themselves: " + b;
    }
    throw std::invalid_argument(msg + "; pass --interface NAME|IP");
  }
  std::vector<NetInterface> several;
  for (auto* g : good) several.push_back(*g);
  throw std::invalid_argument(
      "cannot choose the interface to listen on: several reach every "
      "other host (" +
      describe(several) + "); pass --interface NAME|IP to pick one");
}

InterfaceChoice agree_listen_interface(Bootstrap& boot, const InterfaceRequest& request) {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  HostInterfaces here{name, local_ipv4_interfaces()};
  std::vector<std::string> all = boot.allgather(encode_host_interfaces(here));
  std::vector<HostInterfaces> others;
  for (const auto& text : all) {
    HostInterfaces h = decode_host_interfaces(text);
    bool seen = h.host == here.host ||
                std::any_of(others.begin(), others.end(),
                            [&](const HostInterfaces& o) { return o.host == h.host; });
    if (!seen) others.push_back(std::move(h));
  }
  InterfaceChoice choice;
  std::string error;
  try {
    choice = choose_interface(request, here.interfaces, others);
  } catch (const std::invalid_argument& e) {
    error = e.what();
    if (!others.empty())
      error = here.host + " (rank " + std::to_string(boot.rank()) + "): " + error;
  }
  // Every rank learns every error: one that failed alone would leave the rest waiting.
  for (const auto& e : boot.allgather(error))
    if (!e.empty()) boot.fail_all(e);
  return choice;
}

}  // namespace commbench
