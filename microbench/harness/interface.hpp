// Which address this rank's listeners bind (tcp, ucx, and the apps' workers).
//
// - --interface NAME|IP (or COMMBENCH_INTERFACE, for launchers and job scripts that set
//   one variable for every rank) wins: the interface's address, or the IP as given.
// - Every rank on one host: 127.0.0.1. Nothing needs more, and a listener on a routed
//   address is one more door open to the network for the length of the run.
// - Ranks on several hosts: the local IPv4 interface whose subnet holds an address of
//   every other host. Container and VM bridges (docker0, virbr0, ...) are never chosen by
//   themselves: they carry the same private subnet on every host, so they would seem to
//   reach everyone. None, or more than one (a management network beside the fast one),
//   is an error that asks for --interface: a guess would measure the wrong network.
#pragma once

#include <string>
#include <vector>

#include "comm/net_interfaces.hpp"
#include "harness/bootstrap.hpp"

namespace commbench {

struct InterfaceRequest {
  std::string value;   // name or IP; empty: none
  std::string source;  // "--interface" or "COMMBENCH_INTERFACE"
};

// --interface's value, else COMMBENCH_INTERFACE's.
InterfaceRequest interface_request(const std::string& option_value);

struct InterfaceChoice {
  std::string requested;  // as given; empty: none
  std::string name;       // the interface ("" for an IP this host does not hold)
  std::string address;    // what the listeners bind
  std::string how;        // the request's source, "single host: loopback", "subnet of peers"
};

// One host's interfaces, as the ranks exchange them.
struct HostInterfaces {
  std::string host;
  std::vector<NetInterface> interfaces;
};
std::string encode_host_interfaces(const HostInterfaces& h);
HostInterfaces decode_host_interfaces(const std::string& text);

// The rules above, for this host's interfaces `mine` and every *other* host's (empty:
// all ranks are here). Throws std::invalid_argument with a one-line message.
InterfaceChoice choose_interface(const InterfaceRequest& request,
                                 const std::vector<NetInterface>& mine,
                                 const std::vector<HostInterfaces>& other_hosts);

// Collective: exchanges every rank's host and interfaces, then chooses; an error on any
// rank ends the job with one line (rank 0 prints it, naming the host when there are
// several).
InterfaceChoice agree_listen_interface(Bootstrap& boot, const InterfaceRequest& request);

}  // namespace commbench
