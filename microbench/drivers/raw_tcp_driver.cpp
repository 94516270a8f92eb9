// raw-tcp: its variant, connecting, and the sender thread of a blocking bidirectional
// window.
#include "drivers/raw_tcp_driver.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <span>
#include <string_view>

#include "comm/address.hpp"
#include "comm/handshake.hpp"
#include "comm/peer_auth.hpp"

namespace commbench {

using tcp::errno_message;
using tcp::FdGuard;

namespace {

using SteadyClock = std::chrono::steady_clock;

// Fills `out` from blocking socket `fd`, waiting no later than `deadline`. Throws
// CommClosedError at EOF, TimeoutError past the deadline.
void read_until(int fd, std::span<std::byte> out, SteadyClock::time_point deadline) {
  size_t got = 0;
  while (got < out.size()) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) throw TimeoutError("raw-tcp hello: no answer in time");
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno != EINTR) throw CommError(errno_message("raw-tcp hello poll", errno));
    if (r <= 0) continue;
    ssize_t n = ::recv(fd, out.data() + got, out.size() - got, 0);
    if (n == 0) throw CommClosedError("raw-tcp hello: peer closed");
    if (n < 0 && errno != EINTR) throw CommError(errno_message("raw-tcp hello recv", errno));
    if (n > 0) got += static_cast<size_t>(n);
  }
}

// The common hello (comm/handshake.hpp) with its job token, read with a deadline. Throws
// ProtocolError for a malformed hello, a wrong token, or an identity other than `expect`.
void read_hello(int fd, const PeerAuth& auth, const std::string& expect,
                SteadyClock::time_point deadline) {
  StagedHelloRead hello;
  for (auto s = hello.next(); !s.empty(); s = hello.next()) read_until(fd, s, deadline);
  Hello h = decode_hello(hello.whole());
  verify_hello(h, auth, "raw-tcp handshake");
  if (h.id != expect) throw WrongPeerIdentity("raw-tcp handshake: the peer is not " + expect);
}

void send_hello(int fd, const PeerAuth& auth) {
  auto bytes = encode_hello(make_hello("", auth));
  if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size()))
    throw CommClosedError(errno_message("raw-tcp hello send", errno));
}

}  // namespace

RawTcpDriver::RawTcpDriver(DriverEnv& env, const RawVariant& variant)
    : RawDriver(kBaseline, variant, env),
      flags_(std::string_view(variant.name) == "busy-poll" ? MSG_DONTWAIT : 0) {}

void RawTcpDriver::connect() {
  int rank = env_.boot.rank();
  std::string contact;
  FdGuard listener;
  if (rank == 1) {
    socklen_t len = 0;
    sockaddr_storage sa = tcp::resolve(HostPort{env_.host, 0}, len);
    listener = FdGuard(::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0 ||
        ::listen(listener.get(), 16) != 0)
      throw CommError(errno_message("raw-tcp listen", errno));
    HostPort bound = tcp::local_endpoint(listener.get());
    contact = format_host_port(env_.host, bound.port);
  }
  auto all = env_.boot.allgather(contact);
  // Both ends verify each other with the common hello (job token + identity) before the
  // timed loop: rank 0 speaks first, rank 1 answers only the expected peer. Nothing of it
  // is on the timed path.
  const PeerAuth& auth = env_.opts.backend_options.auth;
  auto deadline = SteadyClock::now() +
                  std::chrono::milliseconds(static_cast<long>(env_.opts.connect_timeout_s * 1000));
  if (rank >= 2 && env_.opts.test_stray)
    stray_ = std::make_unique<StrayPeer>(parse_host_port(all[1]), auth.token);
  if (rank == 0) {
    HostPort hp = parse_host_port(all[1]);
    for (;;) {
      socklen_t len = 0;
      sockaddr_storage sa = tcp::resolve(hp, len);
      FdGuard fd(::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) == 0) {
        fd_ = std::move(fd);
        break;
      }
      if (SteadyClock::now() > deadline)
        throw ConnectError("raw-tcp: cannot connect to " + all[1] + ": " +
                           errno_message("connect", errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    send_hello(fd_.get(), auth);
    read_hello(fd_.get(), auth, rank_identity(1), deadline);
  } else if (rank == 1) {
    // The first connection that proves itself rank 0 of this job; every other one is
    // counted and closed, and accepting goes on (each gets at most 2 s to say hello).
    for (;;) {
      pollfd p{listener.get(), POLLIN, 0};
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) == 0)
        throw ConnectError("raw-tcp: rank 0 did not connect within --connect-timeout");
      FdGuard fd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (fd.get() < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        throw CommError(errno_message("raw-tcp accept", errno));
      }
      try {
        read_hello(fd.get(), auth, rank_identity(0),
                   std::min(deadline, SteadyClock::now() + std::chrono::seconds(2)));
        send_hello(fd.get(), auth);
      } catch (const std::exception&) {
        auth.count_rejected(refusal_of(std::current_exception()));
        continue;
      }
      fd_ = std::move(fd);
      break;
    }
  }
  if (fd_.get() >= 0) tcp::set_nodelay(fd_.get());
}

void RawTcpDriver::close() {
  stray_.reset();
  if (sender_.joinable()) {
    // A run that failed while the sender still blocks: the shutdown wakes it.
    ::shutdown(fd_.get(), SHUT_RDWR);
    sender_.join();
  }
  fd_ = FdGuard();
}

void RawTcpDriver::start_sender() {
  std::swap(sending_, sends_);  // the thread owns these; new posts queue anew
  sender_error_ = nullptr;
  sender_ = std::thread([this] {
    try {
      for (auto [p, n] : sending_.items) send(p, n);
    } catch (...) {
      sender_error_ = std::current_exception();
    }
  });
}

void RawTcpDriver::join_sender() {
  sender_.join();
  sending_.clear();
  if (sender_error_) std::rethrow_exception(std::exchange(sender_error_, nullptr));
}

}  // namespace commbench
