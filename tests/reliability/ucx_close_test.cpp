// ucx: a graceful close ends within its deadline even when the peer has stopped making
// progress. On one host a tag send completes only once the peer's shared-memory FIFO has a
// free slot, and the FIFO (shared by every sender to that process) frees slots only as
// the peer progresses its worker. At the end of a 40-rank merge the scheduler's rank went
// on to the end-of-run MPI collectives while workers, whose goodbyes had filled its FIFO,
// waited in UcxComm::close() for their close packet to leave: the job hung until --timeout.
// Here the peer is a second ucx backend in this process whose accepted comm nobody reads
// (cooperative policy: its data worker is progressed only by a waiting coroutine), the
// FIFO is filled by writes, and close() must return within its 2 s deadline instead of
// waiting for ever (before the fix it did not return until the peer read again). ~3 s.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "comm/errors.hpp"
#include "comm/registry.hpp"
#include "loop_fixture.hpp"
#include "pattern_message.hpp"
#include "runtime/spawn.hpp"
#include "runtime/timeout.hpp"

using namespace commbench;
using namespace commbench::testing;
using namespace std::chrono_literals;

namespace {

class UcxCloseStalledPeer : public LoopFixture {
 protected:
  void SetUp() override {
    use_backend("ucx", "cooperative");
    if (IsSkipped()) return;
    peer_ = registry().create("ucx", loop_, options_);
  }
  void TearDown() override {
    LoopFixture::TearDown();  // stops the peer's listener before the peer goes
    peer_.reset();
  }
  std::unique_ptr<Backend> peer_;
};

TEST_F(UcxCloseStalledPeer, CloseEndsWithinItsDeadline) {
  std::unique_ptr<Comm> client, server;
  PatternMessage out(0, {4096});  // a bare message: one eager send, one FIFO slot each
  size_t posted = 0, finished = 0;
  double close_s = -1;
  bool stalled = false;
  run(
      [&](CancelToken t) -> Task<void> {
        std::string addr =
            co_await listen(*peer_, [&server](std::unique_ptr<Comm> c) -> Task<void> {
              server = std::move(c);
              co_return;
            });
        client = co_await connect(addr);
        while (!server) co_await loop_.sleep_for(1ms, t);
        auto write_one = [&]() -> Task<void> {
          try {
            co_await client->write(out.msg);
          } catch (const CommError&) {
          }
          ++finished;
        };
        // Writes until they stop finishing: the peer's FIFO (or, over TCP, the socket
        // buffers) is full and the next send waits for the peer.
        uint64_t last_change = EventLoop::now_ns();
        size_t seen = 0;
        while (posted < 20000) {
          while (posted - finished < 8) {
            ++posted;
            spawn(loop_, write_one());
          }
          co_await loop_.sleep_for(1ms, t);
          if (finished != seen) {
            seen = finished;
            last_change = EventLoop::now_ns();
          } else if (EventLoop::now_ns() - last_change > 200'000'000ull) {
            stalled = true;
            break;
          }
        }
        if (!stalled) co_return;
        bool closed = false;
        uint64_t start = EventLoop::now_ns();
        auto close_it = [&]() -> Task<void> {  // named: its captures outlive the spawn
          co_await client->close();
          closed = true;
        };
        spawn(loop_, close_it());
        while (!closed && EventLoop::now_ns() - start < 8'000'000'000ull)
          co_await loop_.sleep_for(1ms, t);
        if (closed) close_s = static_cast<double>(EventLoop::now_ns() - start) * 1e-9;
        // The peer reads again: everything queued drains, the writes and (before the fix)
        // the close finish, so nothing is left suspended at teardown. A read that waits a
        // second ends the drain (the close packet, when released to UCP at the deadline,
        // leaves only as this side progresses, and nothing here waits on it any more).
        Message in;
        for (bool more = true; more;) {
          try {
            co_await with_timeout(
                loop_, 1s, [&](CancelToken rt) -> Task<void> { co_await server->read(in, rt); });
          } catch (const std::exception&) {
            more = false;
          }
        }
        while ((!closed || finished < posted) && EventLoop::now_ns() - start < 20'000'000'000ull)
          co_await loop_.sleep_for(1ms, t);
      },
      60s);
  std::printf("[ucx-close] %zu writes before the peer's queue filled; close took %.3f s\n", posted,
              close_s);
  ASSERT_TRUE(stalled) << "20,000 writes of 4 KiB all finished with the peer not reading";
  EXPECT_GE(close_s, 0.0) << "close() did not end within 8 s of a peer that stopped";
  EXPECT_LT(close_s, 5.0);
  EXPECT_EQ(finished, posted);
}

}  // namespace
