// The comm tests' fixture: an event loop, a backend, listeners and connectors on that one
// loop (listener and connector in one process), every test body under a deadline (a hang
// fails the test instead of CI), and errors escaping detached handlers collected instead
// of printed. BackendSuite runs a test on every backend of the registry.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "echo_server.hpp"
#include "pattern_message.hpp"
#include "runtime/timeout.hpp"

namespace commbench::testing {

struct BackendParam {
  std::string scheme;
  std::string progress;
};

// Every registered scheme with every progress policy that can run listener and connector
// on one loop (not one that stalls the loop: mpi:blocking's MPI_Wait would deadlock
// against itself).
std::vector<BackendParam> all_backend_params();
// One entry per scheme: its default policy (the first its table lists), for the costliest
// cases.
std::vector<BackendParam> default_backend_params();
// "tcp_epoll": a test-name suffix.
std::string param_name(const ::testing::TestParamInfo<BackendParam>& info);
// So failures print "tcp:epoll" instead of the object's bytes.
inline void PrintTo(const BackendParam& p, std::ostream* os) {
  *os << p.scheme << ":" << p.progress;
}

class LoopFixture : public ::testing::Test {
 protected:
  void TearDown() override;

  // Creates backend_ (progress "" = the scheme's default) and makes it the one under test.
  // Where this machine refuses it (BackendUnavailable: tcp:uring where the kernel forbids
  // io_uring), the test is skipped with that one line: a SetUp that goes on after it
  // checks IsSkipped().
  void use_backend(const std::string& scheme, const std::string& progress = {});

  // Runs `body(token)` on the loop under a deadline (run_limit_ unless given).
  template <typename F>
  void run(F body, std::chrono::seconds limit) {
    loop_.run(with_timeout(loop_, limit, [&](CancelToken t) -> Task<void> { co_await body(t); }));
  }
  template <typename F>
  void run(F body) {
    run(std::move(body), run_limit_);
  }

  // A listener of `b` (default: the backend under test) serving `handler`; its address.
  Task<std::string> listen(Backend& b, CommHandler handler);
  Task<std::string> listen(CommHandler handler) { return listen(*under_test_, std::move(handler)); }
  // A connection from the backend under test, failing after `timeout` (default:
  // connect_timeout_).
  Task<std::unique_ptr<Comm>> connect(std::string address);
  Task<std::unique_ptr<Comm>> connect(std::string address, std::chrono::nanoseconds timeout);
  // Connects a pair in this process: `client` from a connector, `server` as the listener
  // accepted it. Out-parameters on purpose: returning the two as a struct through
  // co_await made the following ucx test abort in ucp_worker_destroy (the GCC 12
  // aggregate-in-co_await trouble noted in appbench/distributed/channel.hpp).
  Task<void> connect_pair(std::unique_ptr<Comm>& client, std::unique_ptr<Comm>& server);
  // An echo server recording into echo_.
  CommHandler echo() { return echo_server(&echo_); }

  // Writes message i of shapes[i] for every i, each followed by a read of its echo, which
  // must come back byte for byte.
  static Task<void> expect_echoes(Comm& comm, const std::vector<Shape>& shapes);
  // The same with every write and every read posted at once: the echoes must still
  // come back whole and in order.
  static Task<void> expect_pipelined_echoes(Comm& comm, const std::vector<Shape>& shapes);
  // Reads one message from `comm`: true if the read failed with CommClosedError.
  static Task<bool> read_fails_closed(Comm& comm);
  // Reads from `comm` with a deadline of `limit`: true if the read failed with TimeoutError.
  Task<bool> read_times_out(Comm& comm, std::chrono::milliseconds limit);
  // Starts a read on `reader`, closes `closer` (its peer) 10 ms later: true if the
  // pending read then failed with CommClosedError.
  Task<bool> peer_close_fails_read(Comm& reader, Comm& closer);

  EventLoop loop_;
  std::unique_ptr<Backend> backend_;
  BackendOptions options_;         // what backend_ was made with
  PeerAuth auth_;                  // its token and identity; shares backend_'s rejected count
  Backend* under_test_ = nullptr;  // backend_, or a wrapper around it
  std::chrono::nanoseconds connect_timeout_ = std::chrono::seconds(10);
  // A hang fails the test after this long. The comm and staged suites keep 30 s; the fault
  // and load suites, which wait out dead peers and 1,000 connections, set 60 s.
  std::chrono::seconds run_limit_ = std::chrono::seconds(30);
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::string> handler_errors_;
  EchoLog echo_;
};

// A LoopFixture on the parameter's backend: TEST_P over all_backend_params().
class BackendSuite : public LoopFixture, public ::testing::WithParamInterface<BackendParam> {
 protected:
  void SetUp() override { use_backend(GetParam().scheme, GetParam().progress); }
};

}  // namespace commbench::testing
