#include "comm/address.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(Address, HostPortOfAUriOfOneScheme) {
  HostPort hp = parse_host_port_uri("tcp://node1:4000", "tcp");
  EXPECT_EQ(hp.host, "node1");
  EXPECT_EQ(hp.port, 4000);
  try {
    parse_host_port_uri("ucx://node1:4000", "tcp");
    FAIL() << "a ucx address was taken for tcp";
  } catch (const AddressError& e) {
    EXPECT_STREQ(e.what(), "not a tcp address: 'ucx://node1:4000'");
  }
  EXPECT_THROW(parse_host_port_uri("tcp://node1", "tcp"), AddressError);
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

// What the harness asks a backend instead of comparing its name (issue 27 item 3): the
// policies' threads and MPI thread level, the descriptors a connection holds, the settings
// it reads. A new backend answers these in its registry entry and nothing outside
// backends/ changes.
TEST(Registry, EachBackendDescribesWhatTheHarnessAsks) {
  std::vector<std::string> multiple, polling, blocking;
  for (const auto& scheme : registry().schemes()) {
    const BackendInfo& b = registry().info(scheme);
    EXPECT_EQ(&b.policy(""), &b.progress_policies.front()) << scheme;
    EXPECT_THROW(b.policy("telepathy"), std::invalid_argument) << scheme;
    for (const auto& p : b.progress_policies) {
      std::string label = scheme + ":" + p.name;
      if (p.needs_mpi_thread_multiple) multiple.push_back(label);
      if (p.thread == PolicyThread::polling) polling.push_back(label);
      if (p.thread == PolicyThread::blocking) blocking.push_back(label);
    }
  }
  EXPECT_EQ(multiple, std::vector<std::string>{"mpi:thread"});
  EXPECT_EQ(polling, (std::vector<std::string>{"mpi:thread", "ucx:thread"}));
  EXPECT_EQ(blocking, std::vector<std::string>{"ucx:thread-blocking"});
  EXPECT_EQ(registry().info("tcp").descriptors_per_connection, 1u);
  EXPECT_EQ(registry().info("ucx").descriptors_per_connection, 3u);
  EXPECT_EQ(registry().info("mpi").descriptors_per_connection, 0u);
  EXPECT_GT(registry().info("ucx").descriptors_kept_free,
            registry().info("tcp").descriptors_kept_free);
  EXPECT_TRUE(registry().info("mpi").reads_setting("pair_comms"));
  EXPECT_FALSE(registry().info("tcp").reads_setting("pair_comms"));
  EXPECT_TRUE(registry().info("tcp").hello_over_plain_tcp);
  EXPECT_FALSE(registry().info("ucx").hello_over_plain_tcp);
  EXPECT_EQ(registry().find("raw-tcp"), nullptr);  // the baselines are not backends
}
