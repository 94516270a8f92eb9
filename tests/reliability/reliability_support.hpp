// What the reliability tests measure of this process: open descriptors (and what they
// point to) and resident memory, to catch leaks. The fixture, echo server and patterned
// messages they share with the other comm tests live in tests/support/.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace commbench::testing {

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

}  // namespace commbench::testing
