// This host's IPv4 interfaces as plain values (name, address, prefix length, flags), and
// the subnet arithmetic on them. Both the library steering (before MPI_Init: which
// interface name an --interface IP stands for, what the loopback is called) and the
// choice of our listening address (after it: which interface reaches the other hosts)
// work on these values, so the choice can be tested on invented interface lists.
#pragma once

#include <string>
#include <vector>

namespace commbench {

struct NetInterface {
  std::string name;     // eth0, ib0, lo
  std::string address;  // dotted IPv4
  int prefix = 32;      // netmask length
  bool up = false;
  bool loopback = false;
};

// Every IPv4 address of this host, in getifaddrs order (an interface with two addresses
// appears twice). Empty when getifaddrs fails.
std::vector<NetInterface> local_ipv4_interfaces();

// The entry `wanted` names: an interface name, or one of the addresses (IPv4). Null when
// none matches.
const NetInterface* find_interface(const std::vector<NetInterface>& list,
                                   const std::string& wanted);

// The first up loopback entry (lo, 127.0.0.1 on Linux); null when there is none.
const NetInterface* find_loopback(const std::vector<NetInterface>& list);

// True when `address` lies in the /prefix network of `network_address`. False for
// anything that is not a dotted IPv4 address.
bool same_subnet(const std::string& network_address, int prefix, const std::string& address);

// "eth0 10.0.0.1/24, lo 127.0.0.1/8" (for error messages).
std::string describe(const std::vector<NetInterface>& list);

// Container and VM bridges (docker0, br-<id>, virbr0, veth*, CNI and LXC/LXD/Podman
// bridges): networks that exist on many hosts with the same private subnet, or only
// inside one host, so an address match there says nothing about reaching a peer.
bool is_virtual_bridge(const std::string& name);

// This host's RDMA ports as UCX names its InfiniBand/RoCE devices ("mlx5_0:1"), from
// /sys/class/infiniband. They are no IP interface: steering the IP network must keep them.
std::vector<std::string> rdma_ports();

}  // namespace commbench
