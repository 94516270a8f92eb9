// The choice of listening interface (harness/interface.hpp) on invented interface lists:
// the rules must hold for clusters this machine is not.
#include "harness/interface.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace commbench;

namespace {

NetInterface up(const std::string& name, const std::string& addr, int prefix) {
  return {name, addr, prefix, true, name == "lo"};
}

const std::vector<NetInterface> kHostA = {up("lo", "127.0.0.1", 8), up("eth0", "10.0.0.1", 24),
                                          up("docker0", "172.17.0.1", 16)};

std::string error_of(const InterfaceRequest& r, const std::vector<NetInterface>& mine,
                     const std::vector<HostInterfaces>& others) {
  try {
    choose_interface(r, mine, others);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// Every field of a choice (the rules decide them together; the sidecar records all four).
void expect_choice(const InterfaceChoice& c, const std::string& address, const std::string& name,
                   const std::string& how, const std::string& requested) {
  EXPECT_EQ(c.address, address);
  EXPECT_EQ(c.name, name);
  EXPECT_EQ(c.how, how);
  EXPECT_EQ(c.requested, requested);
}

}  // namespace

TEST(Interface, SingleHostListensOnLoopbackOnly) {
  expect_choice(choose_interface({}, kHostA, {}), "127.0.0.1", "lo", "single host: loopback", "");
}

TEST(Interface, RequestedNameWinsEvenOnOneHost) {
  expect_choice(choose_interface({"eth0", "--interface"}, kHostA, {}), "10.0.0.1", "eth0",
                "--interface", "eth0");
  EXPECT_EQ(choose_interface({"eth0", "COMMBENCH_INTERFACE"}, kHostA, {}).how,
            "COMMBENCH_INTERFACE");
}

TEST(Interface, RequestedAddressNamesItsInterface) {
  expect_choice(choose_interface({"10.0.0.1", "--interface"}, kHostA, {}), "10.0.0.1", "eth0",
                "--interface", "10.0.0.1");
}

TEST(Interface, ForeignAddressIsLeftToTheListener) {
  // Not this host's: the listener's bind reports it ("Cannot assign requested address").
  expect_choice(choose_interface({"192.0.2.77", "--interface"}, kHostA, {}), "192.0.2.77", "",
                "--interface", "192.0.2.77");
}

TEST(Interface, UnknownNameIsOneLineNamingTheKnownOnes) {
  std::string e = error_of({"nosuch0", "--interface"}, kHostA, {});
  EXPECT_NE(e.find("no IPv4 interface named 'nosuch0'"), std::string::npos) << e;
  EXPECT_NE(e.find("eth0 10.0.0.1/24"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(Interface, AcrossHostsTakesTheSubnetThePeersShare) {
  // docker0 is 172.17.0.1/16 on every host: the same address on both sides reaches nobody.
  HostInterfaces b{
      "b", {up("lo", "127.0.0.1", 8), up("eth0", "10.0.0.2", 24), up("docker0", "172.17.0.1", 16)}};
  HostInterfaces c{"c", {up("eth0", "10.0.0.3", 24)}};
  InterfaceChoice ch = choose_interface({}, kHostA, {b, c});
  EXPECT_EQ(ch.name, "eth0");
  EXPECT_EQ(ch.address, "10.0.0.1");
  EXPECT_EQ(ch.how, "subnet of peers");
}

TEST(Interface, AHostOutsideEverySubnetIsAnError) {
  HostInterfaces b{"b", {up("eth0", "10.0.0.2", 24)}};
  HostInterfaces far{"far", {up("eth0", "192.168.7.2", 24)}};
  std::string e = error_of({}, kHostA, {b, far});
  EXPECT_NE(e.find("no local IPv4 interface"), std::string::npos) << e;
  EXPECT_NE(e.find("far: eth0 192.168.7.2/24"), std::string::npos) << e;
  EXPECT_NE(e.find("pass --interface"), std::string::npos) << e;
}

TEST(Interface, TwoNetworksToEveryPeerAreAmbiguous) {
  // A management Ethernet beside the fast network: guessing would measure the wrong one.
  std::vector<NetInterface> mine = {up("eth0", "10.0.0.1", 24), up("ib0", "10.1.0.1", 16)};
  HostInterfaces b{"b", {up("eth0", "10.0.0.2", 24), up("ib0", "10.1.0.2", 16)}};
  std::string e = error_of({}, mine, {b});
  EXPECT_NE(e.find("several"), std::string::npos) << e;
  EXPECT_NE(e.find("eth0"), std::string::npos) << e;
  EXPECT_NE(e.find("ib0"), std::string::npos) << e;
  EXPECT_EQ(choose_interface({"ib0", "--interface"}, mine, {b}).address, "10.1.0.1");
}

TEST(Interface, ContainerBridgeIsNeverTakenByItself) {
  // Bridges numbered apart on each host (a swarm, a lab set-up): still not chosen unasked.
  std::vector<NetInterface> mine = {up("virbr0", "192.168.122.1", 24)};
  HostInterfaces b{"b", {up("virbr0", "192.168.122.2", 24)}};
  std::string e = error_of({}, mine, {b});
  EXPECT_NE(e.find("container/VM bridges not taken by themselves: virbr0"), std::string::npos) << e;
  EXPECT_EQ(choose_interface({"virbr0", "--interface"}, mine, {b}).name, "virbr0");
}

TEST(Interface, DownAndLoopbackInterfacesReachNobody) {
  std::vector<NetInterface> mine = {
      up("lo", "127.0.0.1", 8), up("eth0", "10.0.0.1", 24), {"eth1", "10.2.0.1", 24, false, false}};
  HostInterfaces b{
      "b", {up("lo", "127.0.0.2", 8), up("eth0", "10.0.0.2", 24), up("eth1", "10.2.0.2", 24)}};
  EXPECT_EQ(choose_interface({}, mine, {b}).name, "eth0");
}

TEST(Interface, HostListSurvivesTheExchange) {
  HostInterfaces h{"node-7", {up("lo", "127.0.0.1", 8), {"eth1", "10.2.0.1", 20, false, false}}};
  HostInterfaces back = decode_host_interfaces(encode_host_interfaces(h));
  EXPECT_EQ(back.host, "node-7");
  ASSERT_EQ(back.interfaces.size(), 2u);
  EXPECT_EQ(back.interfaces[1].name, "eth1");
  EXPECT_EQ(back.interfaces[1].address, "10.2.0.1");
  EXPECT_EQ(back.interfaces[1].prefix, 20);
  EXPECT_FALSE(back.interfaces[1].up);
  EXPECT_TRUE(back.interfaces[0].loopback);
}

TEST(Interface, SubnetArithmetic) {
  EXPECT_TRUE(same_subnet("10.0.0.1", 24, "10.0.0.254"));
  EXPECT_FALSE(same_subnet("10.0.0.1", 24, "10.0.1.1"));
  EXPECT_TRUE(same_subnet("10.0.0.1", 16, "10.0.200.1"));
  EXPECT_TRUE(same_subnet("10.0.0.1", 0, "192.168.0.1"));
  EXPECT_FALSE(same_subnet("10.0.0.1", 32, "10.0.0.2"));
  EXPECT_FALSE(same_subnet("10.0.0.1", 24, "fe80::1"));
}

TEST(Interface, ThisHostHasALoopback) {
  auto list = local_ipv4_interfaces();
  const NetInterface* lo = find_loopback(list);
  ASSERT_NE(lo, nullptr) << describe(list);
  EXPECT_EQ(lo->address.rfind("127.", 0), 0u);
}
