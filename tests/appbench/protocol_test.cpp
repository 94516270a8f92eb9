// The appbench control protocol (appbench/distributed/protocol.hpp): every message kind
// survives encode/decode, and input that is cut short, padded, or names an unknown
// message or role is refused with a ProtocolError that says which.
#include "distributed/protocol.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "comm/errors.hpp"
#include "distributed/topology.hpp"

using namespace commbench;
using namespace commbench::app;

namespace {

// One message of every kind, each field away from its default so a field the decoder
// skipped or misplaced changes the bytes.
std::vector<ControlMessage> one_of_each() {
  TaskSpec t{"x-1", "make_block", {"a", "b"}, pack_u64({3, 1ull << 40}), 2};
  WorkerStats ws{1, 5, 700, 900, 55, {{0, 1, "x-1", 4096, 10, 20}, {2, -1, "y", 8, 30, 40}}};
  return {
      Hello{Role::peer, 3},
      Submit{42, {t, TaskSpec{"y", "sum", {}, {}, -1}}},
      GraphDone{42, {{"x-1", 1, 4096}, {"y", 0, 8}}},
      GraphFailed{43, "task 'y' failed"},
      Compute{"y", "sum", pack_u64({9}), {{"x-1", 1}, {"a", 0}}},
      TaskDone{"y", 8},
      TaskFailed{"y", "boom", 1},
      Release{{"x-1", "y"}},
      GetData{{"x-1"}},
      Data{{"x-1", "y"}, {2, 1}},
      DataMissing{"no key 'z' on worker 0"},
      StatsRequest{7},
      StatsReply{7, {ws, WorkerStats{}}},
      Shutdown{},
  };
}

// The ProtocolError's message from decoding `bytes`, or "" if it decoded.
std::string decode_error(const std::vector<std::byte>& bytes) {
  try {
    decode(bytes);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "";
}

TEST(Protocol, EveryMessageKindRoundTrips) {
  auto all = one_of_each();
  ASSERT_EQ(all.size(), std::variant_size_v<ControlMessage>) << "a message kind has no sample";
  for (size_t k = 0; k < all.size(); ++k) {
    ASSERT_EQ(all[k].index(), k);
    SCOPED_TRACE(name_of(all[k]));
    auto bytes = encode(all[k]);
    EXPECT_EQ(static_cast<size_t>(bytes.at(0)), k) << "the op byte is the kind";
    ControlMessage back = decode(bytes);
    EXPECT_EQ(back.index(), k);
    EXPECT_EQ(encode(back), bytes);
  }
}

// The round trip above compares bytes; these read fields back, nested ones included.
TEST(Protocol, DecodedFieldsMatchTheSent) {
  auto all = one_of_each();
  auto s = std::get<Submit>(decode(encode(all[1])));
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.graph, 42u);
  EXPECT_EQ(s.tasks[0].key, "x-1");
  EXPECT_EQ(s.tasks[0].deps, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(unpack_u64(s.tasks[0].args), (std::vector<uint64_t>{3, 1ull << 40}));
  EXPECT_EQ(s.tasks[0].worker, 2);
  EXPECT_EQ(s.tasks[1].worker, -1);
  auto h = std::get<Hello>(decode(encode(all[0])));
  EXPECT_EQ(h.role, Role::peer);
  EXPECT_EQ(h.index, 3);
  auto f = std::get<TaskFailed>(decode(encode(all[6])));
  EXPECT_EQ(f.error, "boom");
  EXPECT_EQ(f.lost_worker, 1);
  auto d = std::get<Data>(decode(encode(all[9])));
  EXPECT_EQ(d.parts, (std::vector<uint32_t>{2, 1}));
  auto r = std::get<StatsReply>(decode(encode(all[12])));
  ASSERT_EQ(r.workers.size(), 2u);
  ASSERT_EQ(r.workers[0].transfers.size(), 2u);
  EXPECT_EQ(r.workers[0].transfers[1].to_worker, -1);
  EXPECT_EQ(r.workers[0].transfers[1].duration_ns, 40u);
  EXPECT_EQ(r.workers[0].cpu_ns, 900u);
}

// Every strict prefix of every message lacks a field or part of one.
TEST(Protocol, TruncatedMessagesAreRefused) {
  for (const auto& m : one_of_each()) {
    SCOPED_TRACE(name_of(m));
    auto bytes = encode(m);
    for (size_t n = 0; n < bytes.size(); ++n)
      EXPECT_EQ(decode_error({bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n)}),
                "truncated control message")
          << "prefix of " << n << " of " << bytes.size() << " bytes";
  }
}

TEST(Protocol, TrailingBytesAreRefused) {
  for (const auto& m : one_of_each()) {
    auto bytes = encode(m);
    bytes.push_back(std::byte{0});
    EXPECT_EQ(decode_error(bytes), "trailing bytes after control message") << name_of(m);
  }
}

TEST(Protocol, UnknownOpIsRefused) {
  auto kinds = static_cast<uint8_t>(std::variant_size_v<ControlMessage>);
  for (uint8_t op : {kinds, uint8_t{200}, uint8_t{255}})
    EXPECT_EQ(decode_error({std::byte{op}}), "unknown control message op " + std::to_string(op));
}

// A Hello whose role byte is none of worker, client, peer was decoded as such a Hello
// before protocol.cpp checked it.
TEST(Protocol, UnknownRoleIsRefused) {
  auto bytes = encode(Hello{Role::worker, 0});
  for (uint8_t role : {0, 4, 255}) {
    bytes.at(1) = std::byte{role};
    EXPECT_EQ(decode_error(bytes), "unknown role " + std::to_string(role) + " in Hello");
  }
}

// `m` encoded, with the u32 at byte `at` (a length or count) replaced by `value`.
std::vector<std::byte> with_u32_at(const ControlMessage& m, size_t at, uint32_t value) {
  auto bytes = encode(m);
  std::memcpy(bytes.data() + at, &value, 4);
  return bytes;
}

// A length or element count larger than the bytes that follow is refused before it is
// used to allocate (4 G elements would not fit in memory).
TEST(Protocol, LengthsBeyondTheMessageAreRefused) {
  const std::string truncated = "truncated control message";
  EXPECT_EQ(decode_error(with_u32_at(Release{{"a"}}, 1, 0xffffffffu)), truncated);
  EXPECT_EQ(decode_error(with_u32_at(StatsReply{1, {WorkerStats{}}}, 9, 0xffffffffu)), truncated);
  EXPECT_EQ(decode_error(with_u32_at(GraphFailed{1, "why"}, 9, 4)), truncated);  // 3 follow
}

TEST(Protocol, TaskArgumentsArePackedAsU64) {
  EXPECT_EQ(unpack_u64(pack_u64({})), std::vector<uint64_t>{});
  EXPECT_EQ(unpack_u64(pack_u64({0, ~0ull, 12345})), (std::vector<uint64_t>{0, ~0ull, 12345}));
  std::vector<std::byte> odd(9);
  try {
    unpack_u64(odd);
    ADD_FAILURE() << "9 bytes unpacked as u64";
  } catch (const ProtocolError& e) {
    EXPECT_STREQ(e.what(), "task arguments are not a list of u64");
  }
}

}  // namespace

// A Hello's role and index must be what the bootstrap says the connecting rank is
// (app_session.cpp refuses and counts the connection otherwise): a rank holding the job
// token cannot pose as another worker or as the client.
TEST(Topology, HelloMustMatchTheRankItCameFrom) {
  Topology t;
  t.layout = Layout::dask;  // 0 scheduler, 1 client, 2.. workers 0..2
  t.ranks = 5;
  EXPECT_TRUE(t.plays(1, Role::client, -1));
  EXPECT_FALSE(t.plays(2, Role::client, -1));
  EXPECT_TRUE(t.plays(2, Role::worker, 0));
  EXPECT_FALSE(t.plays(3, Role::worker, 0));  // worker 1 claiming to be worker 0
  EXPECT_TRUE(t.plays(4, Role::peer, 2));
  EXPECT_FALSE(t.plays(4, Role::peer, 3));     // no worker 3
  EXPECT_FALSE(t.plays(-1, Role::worker, 0));  // no identity in the backend hello
  EXPECT_FALSE(t.plays(0, Role::worker, -2));
  t.layout = Layout::compact;  // scheduler and client share rank 0
  EXPECT_TRUE(t.plays(0, Role::client, -1));
  EXPECT_TRUE(t.plays(1, Role::worker, 0));
  EXPECT_FALSE(t.plays(1, Role::client, -1));
}
