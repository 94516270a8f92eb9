#include "harness/progress_line.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <string>

namespace commbench {

namespace {
double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
constexpr double kQuietFirstS = 2.0;  // short runs print nothing extra
constexpr double kRedrawS = 0.5;

std::string fd2_target(const std::string& pid) {
  char buf[256];
  ssize_t n = ::readlink(("/proc/" + pid + "/fd/2").c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::string parent_of(const std::string& pid) {
  std::FILE* f = std::fopen(("/proc/" + pid + "/stat").c_str(), "r");
  if (!f) return {};
  char buf[512] = {};
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
  std::string stat(buf, n);
  auto close = stat.rfind(')');
  if (close == std::string::npos) return {};
  char state = 0;
  long ppid = 0;
  if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) != 2) return {};
  return std::to_string(ppid);
}

// Whether what this process writes to stderr reaches a terminal. A rank's stderr is a pipe
// to its launcher (mpirun, or hydra's proxy under mpiexec), which forwards it to its own
// stderr: so follow pipes up through at most two launcher processes and ask whether the
// first stderr that is not a pipe is a terminal. Under CTest the launcher's stderr is
// CTest's pipe, two levels up: no line.
bool stderr_reaches_terminal() {
  if (::isatty(STDERR_FILENO) == 1) return true;
  std::string pid = "self";
  for (int level = 0; level < 3; ++level) {
    std::string t = fd2_target(pid);
    if (t.rfind("/dev/pts/", 0) == 0 || t.rfind("/dev/tty", 0) == 0) return level > 0;
    if (t.rfind("pipe:", 0) != 0 && t.rfind("socket:", 0) != 0) return false;
    pid = parent_of(pid == "self" ? std::to_string(::getpid()) : pid);
    if (pid.empty() || pid == "0" || pid == "1") return false;
  }
  return false;
}
}  // namespace

ProgressLine::ProgressLine(std::string program, std::string unit, size_t total, bool enabled)
    : program_(std::move(program)),
      unit_(std::move(unit)),
      total_(total),
      enabled_(enabled && stderr_reaches_terminal()),
      start_s_(now_s()) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void ProgressLine::step(size_t done, const std::string& what) {
  if (!enabled_ || done == 0) return;
  double now = now_s(), elapsed = now - start_s_;
  if (elapsed < kQuietFirstS || (now - last_draw_s_ < kRedrawS && done < total_)) return;
  last_draw_s_ = now;
  double left = elapsed / static_cast<double>(done) * static_cast<double>(total_ - done);
  // Ends at column 0 again, so a result row printed next (stdout, often the same
  // terminal) overwrites it instead of being appended to it.
  std::fprintf(stderr, "\r\033[K%s: %zu/%zu %s (%s), %.0f s, ~%.0f s left\r", program_.c_str(),
               done, total_, unit_.c_str(), what.c_str(), elapsed, left);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace commbench
