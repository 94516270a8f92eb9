// raw-tcp: its variant, connecting, and the sender thread of a blocking bidirectional
// window.
#include "drivers/raw_tcp_driver.hpp"

#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string_view>

#include "comm/address.hpp"

namespace commbench {

using tcp::errno_message;
using tcp::FdGuard;

RawTcpDriver::RawTcpDriver(DriverEnv& env, const RawVariant& variant)
    : RawDriver(DriverKind::raw_tcp, kRawTcp, variant, env),
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
        ::listen(listener.get(), 1) != 0)
      throw CommError(errno_message("raw-tcp listen", errno));
    HostPort bound = tcp::local_endpoint(listener.get());
    contact = format_host_port(env_.host, bound.port);
  }
  auto all = env_.boot.allgather(contact);
  if (rank == 0) {
    HostPort hp = parse_host_port(all[1]);
    auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(static_cast<long>(env_.opts.connect_timeout_s * 1000));
    for (;;) {
      socklen_t len = 0;
      sockaddr_storage sa = tcp::resolve(hp, len);
      FdGuard fd(::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) == 0) {
        fd_ = std::move(fd);
        break;
      }
      if (std::chrono::steady_clock::now() > deadline)
        throw ConnectError("raw-tcp: cannot connect to " + all[1] + ": " +
                           errno_message("connect", errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  } else if (rank == 1) {
    fd_ = FdGuard(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (fd_.get() < 0) throw CommError(errno_message("raw-tcp accept", errno));
  }
  if (fd_.get() >= 0) tcp::set_nodelay(fd_.get());
}

void RawTcpDriver::close() {
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

std::unique_ptr<Driver> make_raw_tcp_driver(DriverEnv& env, const RawVariant& variant) {
  return std::make_unique<RawTcpDriver>(env, variant);
}

}  // namespace commbench
