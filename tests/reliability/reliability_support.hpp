// Shared by the reliability tests: the backends to run against, patterned messages and
// counting checks, descriptor counts, and a loop fixture whose every test runs under a
// deadline (a hang fails the test instead of CI).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm/registry.hpp"
#include "runtime/timeout.hpp"

namespace commbench::testing {

struct BackendParam {
  std::string scheme;
  std::string progress;
};

// Every registered scheme with every progress policy that can run listener and connector
// on one loop ("blocking" MPI_Wait cannot: it would deadlock against itself).
std::vector<BackendParam> all_backend_params();
// Every registered scheme with its default policy (for the heavier tests).
std::vector<BackendParam> default_backend_params();
std::string param_name(const ::testing::TestParamInfo<BackendParam>& info);
// So failures print "tcp:epoll" instead of the object's bytes.
inline void PrintTo(const BackendParam& p, std::ostream* os) {
  *os << p.scheme << ":" << p.progress;
}

// Byte i of frame f of message m.
std::byte pattern_byte(size_t m, size_t f, size_t i);

struct PatternMessage {
  std::vector<std::vector<std::byte>> data;
  Message msg;
  PatternMessage(size_t id, const std::vector<size_t>& sizes);
};

// Bytes (or frame sizes) that differ from message `id` with `sizes`; 0 = exact.
size_t wrong_bytes(const Message& m, size_t id, const std::vector<size_t>& sizes);

// Open descriptors of this process (/proc/self/fd).
size_t open_fds();
// Open descriptors with what each points to ("socket:[123]", "anon_inode:[eventfd]"…),
// and the change between two such lists, so a count that differs names its culprits.
std::map<int, std::string> fd_targets();
std::string fd_difference(const std::map<int, std::string>& before,
                          const std::map<int, std::string>& after);
// Current resident set size in KiB (VmRSS of /proc/self/status).
size_t rss_kib();
// Raises the soft RLIMIT_NOFILE to at least `want` (up to the hard limit); returns it.
size_t raise_fd_limit(size_t want);

// A fixture with a loop, a backend of the parameter, listeners, and errors escaping
// detached handlers collected instead of printed.
class LoopFixture : public ::testing::TestWithParam<BackendParam> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Runs `body(token)` on the loop under a deadline.
  template <typename F>
  void run(F body, std::chrono::seconds limit = std::chrono::seconds(60)) {
    loop_.run(with_timeout(loop_, limit, [&](CancelToken t) -> Task<void> { co_await body(t); }));
  }
  Task<std::string> listen(Backend& b, CommHandler handler);

  EventLoop loop_;
  std::unique_ptr<Backend> backend_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::string> handler_errors_;
};

}  // namespace commbench::testing
