// The MPI control channel's messages (mpi/mpi_control_wire.hpp), without MPI: what a
// listener makes of a connect request, a connector of the reply, a rank of a close
// notice. The libFuzzer target tests/fuzz/mpi_control_fuzz.cpp explores them further.
#include "mpi/mpi_control_wire.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace commbench::mpi;

namespace {

template <class T>
std::vector<std::byte> bytes_of(const T& v, size_t n = sizeof(T)) {
  std::vector<std::byte> out(sizeof v);
  std::memcpy(out.data(), &v, sizeof v);
  out.resize(n);
  return out;
}

ConnectRequest request() {
  ConnectRequest r;
  r.reply_lane = 2;
  r.service = 5;
  r.reply_tag = 20;
  r.nonce = 77;
  return r;
}

}  // namespace

TEST(MpiControlWire, ConnectRequest) {
  ReadRequest r = decode_connect_request(bytes_of(request()));
  EXPECT_TRUE(r.well_formed);
  EXPECT_EQ(r.req.service, 5);
  EXPECT_EQ(r.req.reply_tag, 20);
  ConnectRequest bad = request();
  bad.version = ConnectRequest::kVersion + 1;
  EXPECT_FALSE(decode_connect_request(bytes_of(bad)).well_formed);
  bad = request();
  bad.magic ^= 1;
  EXPECT_FALSE(decode_connect_request(bytes_of(bad)).well_formed);
  // A short request is refused but still read as far as it goes: its reply tag says
  // where to send the refusal. Extra bytes: refused, the request itself read.
  r = decode_connect_request(bytes_of(request(), 16));
  EXPECT_FALSE(r.well_formed);
  EXPECT_EQ(r.req.reply_tag, 20);
  EXPECT_EQ(r.req.nonce, 0u);
  auto longer = bytes_of(request(), sizeof(ConnectRequest) + 8);
  r = decode_connect_request(longer);
  EXPECT_FALSE(r.well_formed);
  EXPECT_EQ(r.req.nonce, 77u);
  EXPECT_FALSE(decode_connect_request({}).well_formed);
}

TEST(MpiControlWire, ConnectReply) {
  ConnectReply rep;
  rep.tag = 17;
  rep.lane = 8;
  rep.nonce = 77;
  auto got = decode_connect_reply(bytes_of(rep), 77, 8);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->tag, 17);
  EXPECT_FALSE(decode_connect_reply(bytes_of(rep), 78, 8)) << "another request's reply";
  EXPECT_FALSE(decode_connect_reply(bytes_of(rep, 20), 77, 8)) << "short";
  rep.lane = 9;
  EXPECT_FALSE(decode_connect_reply(bytes_of(rep), 77, 8)) << "accepting on a lane beyond";
  rep.lane = -1;
  EXPECT_FALSE(decode_connect_reply(bytes_of(rep), 77, 8));
  rep.status = 1;  // a refusal's lane means nothing
  got = decode_connect_reply(bytes_of(rep), 77, 8);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 1);
  rep.magic ^= 1;
  EXPECT_FALSE(decode_connect_reply(bytes_of(rep), 77, 8));
}

TEST(MpiControlWire, CloseNotice) {
  CloseNotice n;
  n.tag = 17;
  n.sent = 3;
  auto got = decode_close_notice(bytes_of(n));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->sent, 3u);
  EXPECT_FALSE(decode_close_notice(bytes_of(n, 12)));
  EXPECT_FALSE(decode_close_notice(bytes_of(n, 24)));
  n.magic = 0;
  EXPECT_FALSE(decode_close_notice(bytes_of(n)));
}
