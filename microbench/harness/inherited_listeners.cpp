#include "harness/inherited_listeners.hpp"

#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace commbench {

int close_inherited_listeners() noexcept {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return 0;
  // Collected first: closing while readdir walks the same table would be unsafe.
  std::vector<int> listeners;
  for (dirent* e = readdir(dir); e; e = readdir(dir)) {
    int fd = std::atoi(e->d_name);
    if (fd <= 2 || fd == dirfd(dir)) continue;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) continue;
    sockaddr_storage sa{};
    socklen_t sl = sizeof sa;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &sl) != 0) continue;
    // Unix-domain listeners are left alone: they listen on no network.
    if (sa.ss_family == AF_INET || sa.ss_family == AF_INET6) listeners.push_back(fd);
  }
  closedir(dir);
  for (int fd : listeners) ::close(fd);
  return static_cast<int>(listeners.size());
}

}  // namespace commbench
