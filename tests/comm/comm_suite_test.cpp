// The backend-neutral comm checks, run unchanged against every backend and progress
// policy in the registry (Dask's check_* tests have the same shape). A backend joins by
// being registered; nothing here names one.
//
// Listener and connector live in this one process and loop; the executable runs under
// `mpirun -np 1` so backends that need MPI have it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "comm/errors.hpp"
#include "comm/frame_header.hpp"
#include "comm/peer_auth.hpp"
#include "comm/registry.hpp"
#include "loop_fixture.hpp"
#include "pattern_message.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace commbench::testing;
using namespace std::chrono_literals;

namespace {

class CommSuite : public BackendSuite {
 protected:
  // No handler failed, and no echo server met a message it could not decode.
  void expect_clean_handlers() {
    EXPECT_TRUE(handler_errors_.empty()) << handler_errors_.front();
    EXPECT_EQ(echo_.protocol_errors, 0u) << echo_.last_why;
  }
};

TEST_P(CommSuite, EchoMultiFrameMessagesByteForByte) {
  std::vector<Shape> shapes = {
      {1}, {0}, {}, {7, 0, 4096}, {65536 + 3}, {1, 2, 3, 4, 5, 6, 7, 8}, {(1u << 20) + 17, 5}};
  run([&](CancelToken) -> Task<void> {
    std::string addr = co_await listen(echo());
    auto comm = co_await connect(addr);
    EXPECT_EQ(comm->peer_address().rfind(GetParam().scheme + "://", 0), 0u) << comm->peer_address();
    EXPECT_EQ(comm->local_address().rfind(GetParam().scheme + "://", 0), 0u);
    co_await expect_echoes(*comm, shapes);
    co_await comm->close();
  });
  expect_clean_handlers();
}

// One-frame messages travel bare (no header) on some backends up to an inline limit
// (mpi: 3968 B on Open MPI, 16 KiB - 128 on MPICH; ucx: 8 KiB) and framed past it: every
// size around those limits, alternating with multi-frame messages, arrives whole. Two
// frames carry bytes a receiver could mistake for its own: ucx's 4-byte close packet
// and a valid frame header.
TEST_P(CommSuite, OneFrameMessagesAroundInlineLimits) {
  std::vector<size_t> sizes = {0,    1,    4,    8,    255,  256,   257,   3967,  3968,
                               3969, 4096, 8191, 8192, 8193, 16255, 16256, 16257, 16385};
  const std::string close_packet = "CBXC";
  std::byte four[4] = {};
  std::vector<std::byte> lookalike_header(header_bytes(1));
  encode_header(Message({Buffer{four, 4, MemoryKind::host}}), lookalike_header, CommLimits{});
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(echo()));
    Message in;
    for (size_t k = 0; k < sizes.size(); ++k) {
      PatternMessage out(k, {sizes[k]});
      co_await comm->write(out.msg);
      co_await comm->read(in);
      EXPECT_EQ(wrong_bytes(in, k, {sizes[k]}), 0u) << sizes[k] << " bytes";
      PatternMessage two(100 + k, {sizes[k], 3});
      co_await comm->write(two.msg);
      co_await comm->read(in);
      EXPECT_EQ(wrong_bytes(in, 100 + k, {sizes[k], 3}), 0u) << sizes[k] << " + 3 bytes";
    }
    std::vector<std::byte> cp(4);
    std::memcpy(cp.data(), close_packet.data(), 4);
    for (auto* bytes : {&cp, &lookalike_header}) {
      Message out({Buffer{bytes->data(), bytes->size(), MemoryKind::host}});
      co_await comm->write(out);
      co_await comm->read(in);
      EXPECT_TRUE(in.frames.size() == 1 && in.frames[0].size == bytes->size() &&
                  std::memcmp(in.frames[0].data, bytes->data(), bytes->size()) == 0)
          << bytes->size() << "-byte look-alike frame";
    }
    co_await comm->close();
  });
  expect_clean_handlers();
}

TEST_P(CommSuite, LargeFrameRoundTrip) {
  Shape shape = {(32u << 20) + 13};
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(echo()));
    PatternMessage out(3, shape);
    Message in;
    co_await comm->write(out.msg);
    co_await comm->read(in);
    EXPECT_EQ(wrong_bytes(in, 3, shape), 0u);
  });
}

TEST_P(CommSuite, ManyConcurrentConnections) {
  constexpr size_t kClients = 32, kMessages = 5;
  run([&](CancelToken) -> Task<void> {
    std::string addr = co_await listen(echo());
    size_t wrong = 0;
    // Named, so the coroutines' references to the captures outlive the loop below.
    auto client = [&](size_t id) -> Task<void> {
      auto comm = co_await connect(addr);
      Message in;
      for (size_t k = 0; k < kMessages; ++k) {
        Shape shape = {id * 100 + k + 1};
        PatternMessage out(id * 1000 + k, shape);
        co_await comm->write(out.msg);
        co_await comm->read(in);
        wrong += wrong_bytes(in, id * 1000 + k, shape);
      }
      co_await comm->close();
    };
    std::vector<Task<void>> clients;
    for (size_t c = 0; c < kClients; ++c) clients.push_back(client(c));
    co_await when_all(std::move(clients));
    EXPECT_EQ(wrong, 0u);
  });
}

TEST_P(CommSuite, ConcurrentWritesAndReadsKeepOrder) {
  constexpr size_t kMessages = 64;
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(echo()));
    std::vector<Shape> shapes;
    for (size_t i = 0; i < kMessages; ++i) shapes.push_back({100 + i * 37});
    co_await expect_pipelined_echoes(*comm, shapes);
  });
}

// A write starts within its call (comm.hpp): writes go out in the order they are called,
// whatever order their Tasks are awaited in. Here they are awaited last first, small bare
// messages among multi-frame and large ones (which wait for room mid-send). Lazy writes,
// which started only when awaited, sent them in reverse.
TEST_P(CommSuite, WritesGoOutInCallOrderWhateverTheAwaitOrder) {
  const std::vector<Shape> shapes = {{8}, {3, 5, 0}, {(1u << 20) + 3}, {16}, {0}, {200000, 7}, {1}};
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(echo()));
    std::vector<PatternMessage> outs;
    for (size_t id = 0; id < shapes.size(); ++id) outs.emplace_back(id, shapes[id]);
    std::vector<Task<void>> writes;
    for (const auto& out : outs) writes.push_back(comm->write(out.msg));
    std::vector<Message> ins(shapes.size());
    std::vector<Task<void>> ops;
    for (size_t i = writes.size(); i-- > 0;) ops.push_back(std::move(writes[i]));
    for (auto& in : ins) ops.push_back(comm->read(in));
    co_await when_all(std::move(ops));
    for (size_t id = 0; id < shapes.size(); ++id)
      EXPECT_EQ(wrong_bytes(ins[id], id, shapes[id]), 0u) << "message " << id;
    co_await comm->close();
  });
  expect_clean_handlers();
}

TEST_P(CommSuite, ReadInProgressFailsWhenPeerCloses) {
  run([&](CancelToken) -> Task<void> {
    std::unique_ptr<Comm> server, client;
    co_await connect_pair(client, server);
    bool failed = co_await peer_close_fails_read(*server, *client);
    EXPECT_TRUE(failed);
  });
}

// What an owner relies on to tear down: abort() wakes the comm's own pending read with
// CommClosedError on the loop's next turns, so the reader unwinds before the comm is
// destroyed (a reader left suspended would resume into freed memory later).
TEST_P(CommSuite, LocalAbortFailsPendingRead) {
  run([&](CancelToken) -> Task<void> {
    std::unique_ptr<Comm> server, client;
    co_await connect_pair(client, server);
    bool failed = false, done = false;
    auto reader = [&]() -> Task<void> {
      failed = co_await read_fails_closed(*client);
      done = true;
    };
    auto aborter = [&]() -> Task<void> {
      co_await loop_.sleep_for(10ms);
      EXPECT_FALSE(done);  // the read really was pending
      client->abort();
    };
    auto start = std::chrono::steady_clock::now();
    co_await when_all(reader(), aborter());
    EXPECT_TRUE(failed);
    EXPECT_TRUE(client->closed());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  });
}

TEST_P(CommSuite, WriteToClosedPeerFails) {
  run([&](CancelToken) -> Task<void> {
    std::unique_ptr<Comm> server, client;
    co_await connect_pair(client, server);
    co_await client->close();
    PatternMessage out(1, {1024});
    bool failed = false;
    // The first writes may still be buffered by the transport; the error must come soon.
    for (int i = 0; i < 200 && !failed; ++i) {
      try {
        co_await server->write(out.msg);
        co_await loop_.sleep_for(1ms);
      } catch (const CommClosedError&) {
        failed = true;
      }
    }
    EXPECT_TRUE(failed);
  });
}

TEST_P(CommSuite, OperationsAfterLocalCloseFail) {
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(echo()));
    co_await comm->close();
    EXPECT_TRUE(comm->closed());
    Message m;
    bool read_failed = false, write_failed = false;
    try {
      co_await comm->read(m);
    } catch (const CommClosedError&) {
      read_failed = true;
    }
    try {
      PatternMessage out(1, {1});
      co_await comm->write(out.msg);
    } catch (const CommClosedError&) {
      write_failed = true;
    }
    EXPECT_TRUE(read_failed);
    EXPECT_TRUE(write_failed);
    comm->abort();  // abort after close, and twice, is harmless
    comm->abort();
  });
}

TEST_P(CommSuite, ReadTimesOut) {
  run([&](CancelToken) -> Task<void> {
    auto comm = co_await connect(co_await listen(echo()));
    auto start = std::chrono::steady_clock::now();
    bool timed_out = co_await read_times_out(*comm, 50ms);
    EXPECT_TRUE(timed_out);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  });
}

TEST_P(CommSuite, ConnectToStoppedListenerFailsWithinTimeout) {
  run([&](CancelToken) -> Task<void> {
    std::string addr = co_await listen(echo());
    listeners_.back()->stop();
    listeners_.pop_back();
    auto start = std::chrono::steady_clock::now();
    bool failed = false;
    std::string why;
    try {
      co_await connect(addr, 300ms);
    } catch (const ConnectError& e) {
      failed = true;
      why = e.what();
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(failed);
    EXPECT_NE(why.find(addr), std::string::npos) << why;
    EXPECT_LT(elapsed, 5s);
  });
}

TEST_P(CommSuite, MalformedAddressIsRejected) {
  run([&](CancelToken) -> Task<void> {
    bool rejected = false;
    try {
      co_await connect(GetParam().scheme + "://no port here!", 1s);
    } catch (const AddressError&) {
      rejected = true;
    }
    EXPECT_TRUE(rejected);
    bool wrong_scheme = false;
    try {
      co_await connect("nosuchscheme://x:1", 1s);
    } catch (const AddressError&) {
      wrong_scheme = true;
    }
    EXPECT_TRUE(wrong_scheme);
  });
}

// --- only the job's own peers get in (comm/peer_auth.hpp) -----------------------------

// A backend like the one under test (same scheme and policy) whose hello carries `token`
// and `id`: with another job's token, a stray.
std::unique_ptr<Backend> backend_with(const std::string& scheme, const BackendOptions& like,
                                      EventLoop& loop, const JobToken& token,
                                      const std::string& id) {
  BackendOptions o = like;
  o.auth = PeerAuth{};  // its own count
  o.auth.token = token;
  o.auth.self_id = id;
  return registry().create(scheme, loop, o);
}

// Connects as `stray` does: true when the listener refused it (ConnectError after the
// retries, or ProtocolError at once: mpi's listener answers "wrong job token"). `why`
// gets the message, which must not give the token away.
Task<bool> refused(Backend& stray, const std::string& addr, std::string& why,
                   std::chrono::milliseconds timeout = 300ms) {
  auto connector = stray.make_connector();
  try {
    auto comm = co_await connector->connect(addr, timeout);
    comm->abort();
    co_return false;
  } catch (const ConnectError& e) {
    why = e.what();
  } catch (const ProtocolError& e) {
    why = e.what();
  }
  co_return true;
}

std::string hex(const JobToken& t) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::byte b : t) {
    s += digits[static_cast<unsigned>(b) >> 4];
    s += digits[static_cast<unsigned>(b) & 15];
  }
  return s;
}

// A stray with another job's token before the peer connects, one with no token (all
// zero, what an unconfigured peer sends) while messages are in flight, and one with
// another token while the peer closes: each is refused and counted, the listener goes
// on, and the real connection's bytes stay correct.
TEST_P(CommSuite, StraysAreRefusedAndCountedInEveryPhase) {
  JobToken other = auth_.token;
  other[3] ^= std::byte{0x40};
  auto wrong = backend_with(GetParam().scheme, options_, loop_, other, "rank 0");
  auto unset = backend_with(GetParam().scheme, options_, loop_, JobToken{}, "rank 0");
  std::vector<Shape> shapes;
  for (size_t i = 0; i < 24; ++i) shapes.push_back({(256u << 10) + i, 3});
  std::vector<Shape> after = {{5, 0, 7}};
  run([&](CancelToken) -> Task<void> {
    std::string addr = co_await listen(echo());
    std::string why;
    EXPECT_TRUE(co_await refused(*wrong, addr, why)) << "before the peer connects";
    // The stray sees the refusal before the listener's handshake task has counted it (it
    // counts after closing): wait for the count, bounded, instead of racing it (a loaded
    // CI-like run failed here once for ucx:polling).
    // Up to 15 s, past the listener's 10 s handshake timeout (a stray that went silent is
    // counted when it expires): under TSan the listener had not counted a stray refused
    // mid-transfer within 2 s (CI-like run of 7a4c7cc, ucx:cooperative).
    auto counted_beyond = [&](uint64_t before) -> Task<bool> {
      for (int i = 0; i < 15000 && auth_.rejected_count() <= before; ++i)
        co_await loop_.sleep_for(1ms);
      co_return auth_.rejected_count() > before;
    };
    EXPECT_TRUE(co_await counted_beyond(0)) << "a refused stray is counted";
    uint64_t seen = auth_.rejected_count();
    EXPECT_EQ(why.find(hex(auth_.token)), std::string::npos) << why;
    EXPECT_EQ(why.find(hex(other)), std::string::npos) << why;

    auto comm = co_await connect(addr);
    bool during = false;
    // 1 s, not 300 ms: the listener's loop is busy echoing, and a stray that gives up
    // before the listener reaches its request was never seen to be one (under TSan).
    auto stray_during = [&]() -> Task<void> {
      during = co_await refused(*unset, addr, why, 1000ms);
    };
    co_await when_all(expect_pipelined_echoes(*comm, shapes), stray_during());
    EXPECT_TRUE(during) << "during the transfer";
    EXPECT_TRUE(co_await counted_beyond(seen)) << "counted during the transfer";
    seen = auth_.rejected_count();

    bool teardown = false;
    auto stray_teardown = [&]() -> Task<void> { teardown = co_await refused(*wrong, addr, why); };
    co_await when_all(comm->close(), stray_teardown());
    EXPECT_TRUE(teardown) << "during teardown";
    EXPECT_TRUE(co_await counted_beyond(seen)) << "counted during teardown";

    // The listener still serves this job's peers.
    auto again = co_await connect(addr);
    co_await expect_echoes(*again, after);
    co_await again->close();
  });
  // Each stray only ever counted on the listener's side, never as accepted.
  EXPECT_EQ(echo_.protocol_errors, 0u) << echo_.last_why;
  expect_clean_handlers();
}

// A peer with the job's token is let in, and its identity crosses the hello both ways
// (Comm::peer_id): what the microbenchmark's rank 1 and the apps' roles compare with
// the rank they expect.
TEST_P(CommSuite, PeerIdentityCrossesTheHandshake) {
  auto other = backend_with(GetParam().scheme, options_, loop_, auth_.token, "rank 7");
  run([&](CancelToken) -> Task<void> {
    std::unique_ptr<Comm> server;
    std::string addr = co_await listen([&server](std::unique_ptr<Comm> c) -> Task<void> {
      server = std::move(c);
      co_return;
    });
    auto connector = other->make_connector();
    auto client = co_await connector->connect(addr, connect_timeout_);
    while (!server) co_await loop_.sleep_for(1ms);
    EXPECT_EQ(server->peer_id(), "rank 7");
    EXPECT_EQ(client->peer_id(), "suite");
    co_await client->close();
  });
  EXPECT_EQ(auth_.rejected_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CommSuite, ::testing::ValuesIn(all_backend_params()),
                         param_name);

}  // namespace
