#include "comm/fd_limit.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace commbench {

size_t open_descriptors() {
  std::error_code ec;
  size_t open = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++open;
  return open;
}

// Cheap on the common path: the lowest free descriptor number (what open() returns)
// shows whether the top of the range can be near; only then is /proc/self/fd counted.
size_t descriptors_left(size_t exact_below) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  int probe = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (probe < 0) return 0;
  ::close(probe);
  auto limit = static_cast<size_t>(rl.rlim_cur);
  auto lowest_free = static_cast<size_t>(probe);
  if (lowest_free + exact_below < limit) return limit - lowest_free;
  size_t open = open_descriptors();
  return open >= limit ? 0 : limit - open;
}

namespace {
long long as_count(rlim_t v) {
  return v == RLIM_INFINITY ? -1 : static_cast<long long>(v);
}
}  // namespace

DescriptorLimit descriptor_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return {};
  return {as_count(rl.rlim_cur), as_count(rl.rlim_max)};
}

// Why: the usual soft limit is 1,024 while the hard one is far higher (1 Mi on Debian's
// systemd, 1 Mi in Docker). Each rank of an all-to-all holds one connection per peer:
// one descriptor each on tcp, several on ucx (scale_probe measures it), so a 200-rank ucx
// job would run out at the soft limit that any process may raise by itself. The suite
// raises it once at start-up (RunLayer::start, before MPI_Init, so MPI's own sockets
// have the room too). A run that still cannot fit refuses up front
// (microbench/harness/descriptor_budget.hpp).
DescriptorLimit raise_descriptor_limit() {
  static const DescriptorLimit before = [] {
    DescriptorLimit b = descriptor_limit();
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);  // may fail under a policy: the soft limit stays
    }
    return b;
  }();
  return before;
}

std::string limit_text(long long v) {
  return v < 0 ? std::string("unlimited") : std::to_string(v);
}

std::string descriptor_limit_message(const std::string& what, size_t kept_free) {
  DescriptorLimit l = descriptor_limit();
  return what + ": too few file descriptors left (" + std::to_string(open_descriptors()) +
         " open of RLIMIT_NOFILE " + limit_text(l.soft) +
         (kept_free ? ", " + std::to_string(kept_free) + " kept free" : std::string()) +
         "): raise it with ulimit -n (hard limit " + limit_text(l.hard) + ")";
}

}  // namespace commbench
