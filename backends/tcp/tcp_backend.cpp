#include "tcp/tcp_backend.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "comm/address.hpp"
#include "comm/connect_retry.hpp"
#include "comm/errors.hpp"
#include "comm/fd_limit.hpp"
#include "comm/handshake.hpp"
#include "runtime/spawn.hpp"
#include "runtime/timeout.hpp"
#include "tcp/socket_util.hpp"
#include "tcp/tcp_comm.hpp"
#if COMMBENCH_HAVE_URING
#include "tcp/uring_ring.hpp"
#endif

namespace commbench::tcp {

namespace {

using namespace std::chrono_literals;
constexpr auto kHandshakeTimeout = 10s;

// Both directions of the hello: the connector speaks first, the listener answers only a
// hello that carries the job's token (a stray learns nothing, not even our identity).
// Either end refuses a wrong token with ProtocolError; the caller counts the refusal.
// The hello is read in steps (StagedHelloRead).
Task<std::string> exchange_hello(TcpComm& comm, const std::string& my_name, const PeerAuth& auth,
                                 bool speak_first, CancelToken token) {
  auto mine = encode_hello(make_hello(my_name, auth));
  if (speak_first) co_await comm.write_bytes(mine, token);
  StagedHelloRead hello;
  for (auto s = hello.next(); !s.empty(); s = hello.next()) co_await comm.read_bytes(s, token);
  Hello theirs = decode_hello(hello.whole());
  verify_hello(theirs, auth, "tcp handshake");
  if (!speak_first) co_await comm.write_bytes(mine, token);
  comm.set_peer_id(std::move(theirs.id));
  co_return theirs.name;
}

// State shared by the listener object and its accept loop, which may outlive it by a
// turn after stop() (the loop resumes the cancelled wait later).
struct ListenState {
  EventLoop& loop;
  CommLimits limits;
  PeerAuth auth;
  std::shared_ptr<UringRing> ring;  // tcp:uring's ring for accepted comms, or null
  int fd = -1;
  std::string contact;
  CommHandler handler;
  CancelSource stop;
  ListenState(EventLoop& l, const CommLimits& lim, PeerAuth a)
      : loop(l), limits(lim), auth(std::move(a)) {}
  ~ListenState() { close_fd(); }
  void close_fd() {
    if (fd >= 0) {
      loop.unwatch_fd(fd);
      ::close(fd);
      fd = -1;
    }
  }
};

Task<void> serve_one(std::shared_ptr<ListenState> st, std::unique_ptr<TcpComm> comm) {
  try {
    std::string contact = st->contact;
    TcpComm& c = *comm;
    co_await with_timeout(st->loop, kHandshakeTimeout, [&](CancelToken t) {
      return exchange_hello(c, contact, st->auth, false, t);
    });
  } catch (const std::exception&) {
    // A peer that fails the handshake (wrong token, malformed or no hello, silence) is
    // counted and dropped; the listener goes on serving.
    st->auth.count_rejected(refusal_of(std::current_exception()));
    co_return;
  }
  co_await st->handler(std::move(comm));
}

Task<void> accept_loop(std::shared_ptr<ListenState> st) {
  CancelToken token = st->stop.token();
  for (;;) {
    if (st->fd < 0) co_return;
    int fd = ::accept4(st->fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      spawn(st->loop, serve_one(st, std::make_unique<TcpComm>(st->loop, fd, st->limits, st->ring)));
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      try {
        co_await st->loop.incoming(st->fd, token);
      } catch (const OperationCancelled&) {
        co_return;
      }
      continue;
    }
    if (errno == EMFILE || errno == ENFILE) {  // out of descriptors: back off, keep serving
      co_await st->loop.sleep_for(10ms);
      continue;
    }
    co_return;  // the socket was closed under us (stop)
  }
}

class TcpListener final : public Listener {
 public:
  TcpListener(EventLoop& loop, const std::string& address, const CommLimits& limits,
              const PeerAuth& auth, std::shared_ptr<UringRing> ring)
      : address_(address), state_(std::make_shared<ListenState>(loop, limits, auth)) {
    state_->ring = std::move(ring);
  }
  ~TcpListener() override { stop(); }

  Task<void> start(CommHandler handler) override {
    HostPort hp = parse_host_port_uri(address_, "tcp");
    socklen_t len = 0;
    sockaddr_storage sa = resolve(hp, len);
    FdGuard fd(::socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) throw CommError(errno_message("socket", errno));
    int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0)
      throw CommError(errno_message(("cannot listen on " + address_).c_str(), errno));
    if (::listen(fd.get(), 4096) != 0) throw CommError(errno_message("listen", errno));
    HostPort bound = local_endpoint(fd.get());
    state_->contact = "tcp://" + format_host_port(hp.host, bound.port);
    state_->handler = std::move(handler);
    state_->fd = fd.release();
    state_->loop.watch_fd(state_->fd);
    spawn(state_->loop, accept_loop(state_));
    co_return;
  }

  void stop() noexcept override {
    state_->stop.cancel();
    state_->close_fd();
  }

  std::string contact_address() const override { return state_->contact; }

 private:
  std::string address_;
  std::shared_ptr<ListenState> state_;
};

class TcpConnector final : public Connector {
 public:
  TcpConnector(EventLoop& loop, const CommLimits& limits, PeerAuth auth,
               std::shared_ptr<UringRing> ring)
      : loop_(loop), limits_(limits), auth_(std::move(auth)), ring_(std::move(ring)) {}

  Task<std::unique_ptr<Comm>> connect(const std::string& address,
                                      std::chrono::nanoseconds timeout) override {
    HostPort hp = parse_host_port_uri(address, "tcp");
    co_return co_await connect_with_retry(
        loop_, address, timeout,
        [&](CancelToken t, std::string& why) { return attempt(hp, t, why); });
  }

 private:
  Task<std::unique_ptr<Comm>> attempt(HostPort hp, CancelToken token, std::string& why) {
    socklen_t len = 0;
    sockaddr_storage sa = resolve(hp, len);
    // Out of descriptors: refused while a few are left (kDescriptorReserve says why), not
    // retried (they come back only when the user closes something), in the one line
    // that names the limit.
    const std::string what = "tcp connect to " + format_host_port(hp.host, hp.port);
    if (descriptors_left(2 * kDescriptorReserve) < kDescriptorReserve)
      throw CommError(descriptor_limit_message(what, kDescriptorReserve));
    FdGuard fd(::socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0 && (errno == EMFILE || errno == ENFILE))
      throw CommError(descriptor_limit_message(what, kDescriptorReserve));
    if (fd.get() < 0) throw CommError(errno_message("socket", errno));
    int rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len);
    int err = rc == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      loop_.watch_fd(fd.get());
      try {
        co_await loop_.writable(fd.get(), token);
      } catch (...) {
        loop_.unwatch_fd(fd.get());
        throw;
      }
      loop_.unwatch_fd(fd.get());
      socklen_t elen = sizeof err;
      getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen);
    }
    if (err != 0) {
      why = errno_message("connect", err);
      co_return nullptr;
    }
    auto comm = std::make_unique<TcpComm>(loop_, fd.release(), limits_, ring_);
    try {
      // The listener's contact address; the socket peer is authoritative.
      (void)co_await exchange_hello(*comm, comm->local_address(), auth_, true, token);
    } catch (const CommClosedError& e) {
      // Closed mid-handshake (a listener shedding load or restarting): retry until the
      // timeout, which then reports this as a ConnectError. A ProtocolError (not a
      // commbench peer) is not transient and propagates at once.
      why = std::string("closed during handshake: ") + e.what();
      comm.reset();
    } catch (const ProtocolError&) {
      // a listener of another job (or no commbench peer)
      auth_.count_rejected(refusal_of(std::current_exception()));
      throw;
    }
    co_return comm;
  }

  EventLoop& loop_;
  CommLimits limits_;
  PeerAuth auth_;
  std::shared_ptr<UringRing> ring_;
};

class TcpBackend final : public Backend {
 public:
  TcpBackend(EventLoop& loop, const BackendOptions& options)
      : loop_(loop),
        options_(options),
        policy_(parse_policy(kProgressPolicies, options.progress, "tcp")) {
#if COMMBENCH_HAVE_URING
    // One ring per backend, i.e. per event loop; comms share it and keep it alive.
    // Throws BackendUnavailable (one line) where the kernel refuses io_uring.
    if (policy_ == Progress::uring) {
      auto it = options.extra.find(kUringTaskrunKey);
      ring_ = UringRing::create(loop_,
                                parse_uring_taskrun(it == options.extra.end() ? "" : it->second));
    }
#endif
  }
  std::string scheme() const override {
    return "tcp";
  }
  std::string progress() const override {
    return policy_name(kProgressPolicies, policy_);
  }
  std::unique_ptr<Listener> make_listener(const std::string& address) override {
    return std::make_unique<TcpListener>(loop_, address, options_.limits, options_.auth, ring_);
  }
  std::unique_ptr<Connector> make_connector() override {
    return std::make_unique<TcpConnector>(loop_, options_.limits, options_.auth, ring_);
  }
  std::string default_listen_address(const std::string& host) const override {
    return "tcp://" + format_host_port(host, 0);
  }

 private:
  EventLoop& loop_;
  BackendOptions options_;
  Progress policy_;
  std::shared_ptr<UringRing> ring_;  // tcp:uring only
};

}  // namespace

std::unique_ptr<Backend> make_tcp_backend(EventLoop& loop, const BackendOptions& options) {
  return std::make_unique<TcpBackend>(loop, options);
}

std::vector<SettingInfo> backend_settings() {
#if COMMBENCH_HAVE_URING
  return {uring_taskrun_setting()};
#else
  return {};
#endif
}

}  // namespace commbench::tcp
