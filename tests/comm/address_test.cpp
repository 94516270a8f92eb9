#include <gtest/gtest.h>

#include "comm/address.hpp"
#include "comm/errors.hpp"
#include "comm/registry.hpp"

using namespace commbench;

TEST(Address, ParsesSchemeAndLocation) {
  Address a = parse_address("tcp://127.0.0.1:80");
  EXPECT_EQ(a.scheme, "tcp");
  EXPECT_EQ(a.location, "127.0.0.1:80");
  EXPECT_EQ(a.str(), "tcp://127.0.0.1:80");
  EXPECT_THROW(parse_address("127.0.0.1:80"), AddressError);
  EXPECT_THROW(parse_address("://x"), AddressError);
}

TEST(Address, HostPort) {
  HostPort hp = parse_host_port("node1:4000");
  EXPECT_EQ(hp.host, "node1");
  EXPECT_EQ(hp.port, 4000);
  hp = parse_host_port("[::1]:0");
  EXPECT_EQ(hp.host, "::1");
  EXPECT_EQ(hp.port, 0);
  EXPECT_EQ(format_host_port("::1", 5), "[::1]:5");
  for (const char* bad : {"node1", "node1:", ":80", "node1:99999", "node1:8x", "[::1]80"})
    EXPECT_THROW(parse_host_port(bad), AddressError) << bad;
}

TEST(Registry, UnknownSchemeListsKnownOnes) {
  EventLoop loop;
  try {
    registry().create("carrier-pigeon", loop);
    FAIL() << "no error";
  } catch (const AddressError& e) {
    EXPECT_NE(std::string(e.what()).find("tcp"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("carrier-pigeon"), std::string::npos);
  }
}

TEST(Registry, UnknownProgressPolicyListsKnownOnes) {
  EventLoop loop;
  BackendOptions o;
  o.progress = "telepathy";
  try {
    registry().create("tcp", loop, o);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("epoll"), std::string::npos) << e.what();
  }
}
