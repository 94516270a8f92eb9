// Small POSIX socket helpers shared by the TCP backend and the raw-tcp baseline.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>

#include "comm/address.hpp"

namespace commbench::tcp {

// Resolves host:port (numeric or name) to the first IPv4/IPv6 address. Throws AddressError.
sockaddr_storage resolve(const HostPort& hp, socklen_t& len);
std::string sockaddr_to_string(const sockaddr_storage& sa);
HostPort local_endpoint(int fd);
HostPort peer_endpoint(int fd);

void set_nonblocking(int fd, bool on);
void set_nodelay(int fd);
// "what: strerror(errno)".
std::string errno_message(const char* what, int err);

// Closes on scope exit unless released.
class FdGuard {
 public:
  explicit FdGuard(int fd = -1) noexcept : fd_(fd) {}
  FdGuard(FdGuard&& o) noexcept : fd_(o.release()) {}
  FdGuard& operator=(FdGuard&& o) noexcept;
  FdGuard(const FdGuard&) = delete;
  ~FdGuard();
  int get() const noexcept { return fd_; }
  int release() noexcept {
    int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

}  // namespace commbench::tcp
