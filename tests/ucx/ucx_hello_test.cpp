// The UCX hello's bytes (ucx/ucx_hello.hpp), without UCX: the decoder the handshake runs
// on what a peer sent. The libFuzzer target tests/fuzz/ucx_hello_fuzz.cpp explores it
// further; these pin the limits themselves, which need inputs too long for the fuzzer.
#include "ucx/ucx_hello.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "comm/errors.hpp"

using namespace commbench;
using namespace commbench::ucx;

namespace {

PeerHello sample(size_t name_len = 19, size_t addr_len = 40) {
  PeerHello h;
  h.tag = 0x1122334455667788ull;
  h.name = std::string(name_len, 'n');
  h.id = "rank 3";
  for (size_t i = 0; i < h.token.size(); ++i) h.token[i] = std::byte(0xa0 + i);
  h.address.assign(addr_len, std::byte{7});
  return h;
}

std::string decode_error(const std::vector<std::byte>& bytes) {
  try {
    decode_peer_hello(bytes);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(UcxHello, RoundTripsAtTheLimits) {
  for (auto [name, addr] :
       {std::pair<size_t, size_t>{0, 1}, {19, 40}, {kMaxHelloName, kMaxWorkerAddress}}) {
    PeerHello h = sample(name, addr);
    auto bytes = encode_peer_hello(h);
    const size_t id = h.id.size();
    ASSERT_EQ(bytes.size(), kPeerHelloFixedBytes + name + id + addr);
    EXPECT_EQ(decode_peer_hello_fixed(bytes), name + id + addr)
        << "the first read sizes the second";
    PeerHello back = decode_peer_hello(bytes);
    EXPECT_EQ(back.tag, h.tag);
    EXPECT_EQ(back.name, h.name);
    EXPECT_EQ(back.id, h.id);
    EXPECT_EQ(back.token, h.token);
    EXPECT_EQ(back.address, h.address);
  }
}

// What the decoder would refuse is never sent.
TEST(UcxHello, EncoderRefusesWhatTheDecoderRefuses) {
  EXPECT_THROW(encode_peer_hello(sample(19, 0)), ProtocolError);
  EXPECT_THROW(encode_peer_hello(sample(19, kMaxWorkerAddress + 1)), ProtocolError);
  EXPECT_THROW(encode_peer_hello(sample(kMaxHelloName + 1, 40)), ProtocolError);
}

// The fixed part alone refuses a length beyond the limits, before the rest is allocated.
TEST(UcxHello, FixedPartRefusesLengthsBeyondTheLimits) {
  auto bytes = encode_peer_hello(sample());
  std::vector<std::byte> fixed(bytes.begin(), bytes.begin() + kPeerHelloFixedBytes);
  auto with_u16 = [&](size_t at, unsigned v) {
    auto f = fixed;
    f[at] = std::byte(v & 0xff);
    f[at + 1] = std::byte(v >> 8);
    return f;
  };
  EXPECT_THROW(decode_peer_hello_fixed(with_u16(6, 0)), ProtocolError);
  EXPECT_THROW(decode_peer_hello_fixed(with_u16(6, kMaxWorkerAddress + 1)), ProtocolError);
  EXPECT_THROW(decode_peer_hello_fixed(with_u16(kUcxHelloBytes + 6, kMaxHelloName + 1)),
               ProtocolError);
  EXPECT_THROW(decode_peer_hello_fixed({fixed.data(), fixed.size() - 1}), ProtocolError);
}

TEST(UcxHello, BadMagicVersionOrLengthIsRefused) {
  auto good = encode_peer_hello(sample());
  auto b = good;
  b[0] ^= std::byte{1};
  EXPECT_EQ(decode_error(b), "ucx handshake: bad magic");
  b = good;
  b[4] = std::byte{1};
  EXPECT_EQ(decode_error(b), "ucx handshake: peer speaks version 1, this build speaks 2");
  b = good;
  b.pop_back();
  EXPECT_EQ(decode_error(b), "ucx handshake: length mismatch");
  b = good;
  b.push_back(std::byte{0});
  EXPECT_EQ(decode_error(b), "ucx handshake: length mismatch");
}
