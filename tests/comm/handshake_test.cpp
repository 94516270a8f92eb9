#include "comm/handshake.hpp"

#include <gtest/gtest.h>

#include "comm/errors.hpp"
#include "comm/peer_auth.hpp"

using namespace commbench;

namespace {
JobToken some_token() {
  JobToken t{};
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::byte>(0x11 * (i + 1));
  return t;
}
}  // namespace

TEST(Handshake, RoundTrip) {
  auto bytes = encode_hello(Hello{kHelloVersion, "tcp://10.0.0.1:4000", some_token(), "rank 3"});
  EXPECT_EQ(bytes.size(), kHelloFixedBytes + 19 + 6);
  Hello h = decode_hello(bytes);
  EXPECT_EQ(h.version, kHelloVersion);
  EXPECT_EQ(h.name, "tcp://10.0.0.1:4000");
  EXPECT_EQ(h.id, "rank 3");
  EXPECT_TRUE(same_token(h.token, some_token()));
}

TEST(Handshake, RejectsCorruption) {
  auto good = encode_hello(Hello{kHelloVersion, "peer", some_token(), "rank 0"});
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
  auto huge_id = good;  // the same for the identity
  huge_id[8 + kJobTokenBytes] = std::byte{kMaxPeerId + 1};
  EXPECT_THROW(decode_hello_fixed(huge_id), ProtocolError);
  auto reserved = good;
  reserved[8 + kJobTokenBytes + 2] = std::byte{1};
  EXPECT_THROW(decode_hello_fixed(reserved), ProtocolError);
  EXPECT_THROW(decode_hello(std::span(good).first(3)), ProtocolError);
  EXPECT_THROW(decode_hello_fixed(std::span(good).first(kHelloFixedBytes - 1)), ProtocolError);
}

// A version-1 peer (no token, 8-byte fixed part) is told the versions from its first 8
// bytes, which is all it ever sends of a fixed part.
TEST(Handshake, VersionOnePeerIsToldTheVersion) {
  std::vector<std::byte> v1 = {std::byte{0x43}, std::byte{0x42}, std::byte{0x48}, std::byte{0x53},
                               std::byte{1},    std::byte{0},    std::byte{0},    std::byte{0}};
  try {
    check_hello_prefix(v1);
    FAIL() << "a version-1 hello was accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("version 1"), std::string::npos) << e.what();
  }
}

TEST(Handshake, RefusesToEncodeOverlongNameOrId) {
  EXPECT_THROW(encode_hello(Hello{kHelloVersion, std::string(kMaxHelloName + 1, 'x'), {}, ""}),
               ProtocolError);
  EXPECT_THROW(encode_hello(Hello{kHelloVersion, "", {}, std::string(kMaxPeerId + 1, 'x')}),
               ProtocolError);
}

// The token check refuses another job's token and a missing one, and never puts either
// token in its message.
TEST(Handshake, TokenCheckRefusesOtherTokensWithoutNamingThem) {
  PeerAuth auth;
  auth.token = some_token();
  Hello mine = make_hello("x", auth);
  EXPECT_NO_THROW(verify_hello(mine, auth, "test"));
  Hello other = mine;
  other.token[15] ^= std::byte{1};
  Hello none = mine;
  none.token = JobToken{};
  for (const Hello* h : {&other, &none}) {
    try {
      verify_hello(*h, auth, "test");
      ADD_FAILURE() << "a wrong token was accepted";
    } catch (const ProtocolError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("wrong job token"), std::string::npos) << what;
      for (char c : what) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "binary bytes in the message";
      EXPECT_EQ(refusal_of(std::current_exception()), Refusal::wrong_token);
    }
  }
  EXPECT_EQ(auth.rejected_count(), 0u);  // counting is the caller's
}

// The sidecar's rejected_peers_by_reason rests on these: each kind of failed handshake
// is told apart, and the counts add up per kind and in total, in every copy of the auth.
TEST(Handshake, RefusalsAreToldApartAndCountedPerKind) {
  auto kind = [](auto thrower) {
    try {
      thrower();
    } catch (...) {
      return refusal_of(std::current_exception());
    }
    return Refusal::silent;
  };
  EXPECT_EQ(kind([] { throw WrongJobToken("t"); }), Refusal::wrong_token);
  EXPECT_EQ(kind([] { throw WrongPeerIdentity("i"); }), Refusal::wrong_identity);
  EXPECT_EQ(kind([] { check_hello_prefix({}); }), Refusal::bad_hello);  // truncated
  EXPECT_EQ(kind([] { throw CommClosedError("gone"); }), Refusal::silent);
  EXPECT_EQ(kind([] { throw std::runtime_error("timed out"); }), Refusal::silent);

  PeerAuth auth;
  PeerAuth copy = auth;  // a listener's copy shares the counts
  copy.count_rejected(Refusal::bad_hello);
  copy.count_rejected(Refusal::bad_hello);
  auth.count_rejected(Refusal::silent);
  EXPECT_EQ(auth.rejected_count(Refusal::bad_hello), 2u);
  EXPECT_EQ(auth.rejected_count(Refusal::silent), 1u);
  EXPECT_EQ(auth.rejected_count(Refusal::wrong_token), 0u);
  EXPECT_EQ(auth.rejected_count(), 3u);
  EXPECT_STREQ(to_string(Refusal::wrong_identity), "wrong_identity");
}

// Every hello carries "rank N"; the listeners that take only certain ranks read it back.
TEST(Handshake, RankIdentitiesRoundTripAndNothingElseNamesARank) {
  for (int r : {0, 7, 12, 4095}) EXPECT_EQ(rank_of_identity(rank_identity(r)), r);
  EXPECT_EQ(rank_identity(3), "rank 3");
  for (const char* id : {"", "rank", "rank ", "rank -1", "rank -0", "rank +1", "rank 07x",
                         "rank 1 ", "Rank 1", "worker 3", "rank 99999999999"})
    EXPECT_EQ(rank_of_identity(id), -1) << "'" << id << "'";
}

TEST(Handshake, JobTokensAreRandomAndParseFromHex) {
  EXPECT_FALSE(same_token(random_job_token(), random_job_token()));
  JobToken t{};
  ASSERT_TRUE(parse_job_token("00112233445566778899aabbccddeeff", t));
  EXPECT_EQ(t[0], std::byte{0});
  EXPECT_EQ(t[15], std::byte{0xff});
  EXPECT_FALSE(parse_job_token("0011", t));
  EXPECT_FALSE(parse_job_token("zz112233445566778899aabbccddeeff", t));
}

// What every reader of a hello does (tcp, raw-tcp; ucx with its own prefix): the prefix
// alone, checked before more is asked for (a version-1 peer sends no more); the fixed part,
// whose lengths are checked before the rest is sized; then the rest, exactly.
TEST(Handshake, StagedReadAsksForPrefixThenFixedPartThenRest) {
  auto bytes = encode_hello(Hello{kHelloVersion, "tcp://h:1", some_token(), "rank 1"});
  StagedHelloRead r;
  std::vector<size_t> asked;
  size_t at = 0;
  for (auto s = r.next(); !s.empty(); s = r.next()) {
    asked.push_back(s.size());
    std::copy(bytes.begin() + static_cast<ptrdiff_t>(at),
              bytes.begin() + static_cast<ptrdiff_t>(at + s.size()), s.begin());
    at += s.size();
  }
  EXPECT_EQ(asked,
            (std::vector<size_t>{kHelloPrefixBytes, kHelloFixedBytes - kHelloPrefixBytes, 9 + 6}));
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), r.whole().begin(), r.whole().end()));
  EXPECT_TRUE(r.next().empty());  // and stays done

  // A version-1 peer: refused once its 8 bytes are in, before more is asked for.
  StagedHelloRead v1;
  auto prefix = v1.next();
  std::copy(bytes.begin(), bytes.begin() + kHelloPrefixBytes, prefix.begin());
  prefix[4] = std::byte{1};  // version 1
  EXPECT_THROW(v1.next(), ProtocolError);

  // A fixed part announcing a name past the limit: refused before the rest is sized.
  auto big = bytes;
  big[6] = std::byte{0xff};
  big[7] = std::byte{0xff};
  StagedHelloRead over;
  for (int step = 0; step < 2; ++step) {
    auto s = over.next();
    std::copy(big.begin() + (step ? kHelloPrefixBytes : 0),
              big.begin() + static_cast<ptrdiff_t>((step ? kHelloPrefixBytes : 0) + s.size()),
              s.begin());
  }
  EXPECT_THROW(over.next(), ProtocolError);
  EXPECT_EQ(over.whole().size(), kHelloFixedBytes);
}
