#include <gtest/gtest.h>

#include "comm/errors.hpp"
#include "comm/handshake.hpp"

using namespace commbench;

TEST(Handshake, RoundTrip) {
  auto bytes = encode_hello(Hello{kHelloVersion, "tcp://10.0.0.1:4000"});
  Hello h = decode_hello(bytes);
  EXPECT_EQ(h.version, kHelloVersion);
  EXPECT_EQ(h.name, "tcp://10.0.0.1:4000");
}

TEST(Handshake, RejectsCorruption) {
  auto good = encode_hello(Hello{kHelloVersion, "peer"});
  auto bad_magic = good;
  bad_magic[1] = std::byte{0};
  EXPECT_THROW(decode_hello(bad_magic), ProtocolError);
  auto bad_version = good;
  bad_version[4] = std::byte{7};
  EXPECT_THROW(decode_hello(bad_version), ProtocolError);
  auto short_name = good;
  short_name.pop_back();
  EXPECT_THROW(decode_hello(short_name), ProtocolError);
  auto huge_name = good;  // announces 65535 name bytes: refused before reading them
  huge_name[6] = huge_name[7] = std::byte{0xff};
  EXPECT_THROW(decode_hello_fixed(huge_name), ProtocolError);
  EXPECT_THROW(decode_hello(std::span(good).first(3)), ProtocolError);
}

TEST(Handshake, RefusesToEncodeOverlongName) {
  EXPECT_THROW(encode_hello(Hello{kHelloVersion, std::string(kMaxHelloName + 1, 'x')}),
               ProtocolError);
}
