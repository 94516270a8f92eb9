#include "harness/machine_ranks.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "harness/bootstrap.hpp"

namespace commbench {

std::string machine_id() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (f && std::getline(f, id) && !id.empty()) return id;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string("host:") + host;
}

int note_machine_ranks(const Bootstrap& boot) {
  const std::string mine = machine_id();
  int n = 0;
  for (const std::string& id : boot.allgather(mine)) n += id == mine ? 1 : 0;
  setenv("COMMBENCH_MACHINE_RANKS", std::to_string(n).c_str(), 1);
  return n;
}

}  // namespace commbench
