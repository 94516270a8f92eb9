#include "reliability_support.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace commbench::testing {

std::map<int, std::string> fd_targets() {
  std::map<int, std::string> out;
  if (DIR* d = opendir("/proc/self/fd")) {
    const int own = dirfd(d);
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const int fd = std::atoi(e->d_name);
      if (fd == own) continue;
      char buf[256];
      const std::string path = std::string("/proc/self/fd/") + e->d_name;
      const ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
      out[fd] = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
    }
    closedir(d);
  }
  return out;
}

size_t open_fds() {
  return fd_targets().size();
}

std::string fd_difference(const std::map<int, std::string>& before,
                          const std::map<int, std::string>& after) {
  std::string out;
  for (const auto& [fd, target] : after) {
    auto it = before.find(fd);
    if (it == before.end() || it->second != target) out += " +" + std::to_string(fd) + "=" + target;
  }
  for (const auto& [fd, target] : before)
    if (!after.contains(fd)) out += " -" + std::to_string(fd) + "=" + target;
  return out.empty() ? " (none)" : out;
}

size_t rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "VmRSS:") {
      size_t kib = 0;
      f >> kib;
      return kib;
    }
    f.ignore(1 << 12, '\n');
  }
  return 0;
}

size_t raise_fd_limit(size_t want) {
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < want) {
    rl.rlim_cur = std::min<rlim_t>(want, rl.rlim_max);
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  return static_cast<size_t>(rl.rlim_cur);
}

}  // namespace commbench::testing
