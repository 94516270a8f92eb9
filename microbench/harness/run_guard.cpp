#include "harness/run_guard.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace commbench {

namespace {
// Read by the signal handler: set once before the alarm is armed.
char g_program[64] = "commbench";
unsigned g_timeout_s = 0;

void on_alarm(int) {
  char buf[160];
  int n = std::snprintf(buf, sizeof buf, "%s: error: run exceeded --timeout of %u s\n", g_program,
                        g_timeout_s);
  if (n > 0) (void)!::write(2, buf, static_cast<size_t>(n));
  std::_Exit(3);
}
}  // namespace

bool launcher_rank_is_zero() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* r = std::getenv(v)) return std::atoi(r) == 0;
  return true;
}

void exit_bad_option(const std::string& program, const std::string& what) {
  if (!launcher_rank_is_zero()) std::exit(0);
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), what.c_str());
  std::exit(2);
}

void arm_run_timeout(const std::string& program, double seconds) {
  if (seconds <= 0) return;
  std::snprintf(g_program, sizeof g_program, "%s", program.c_str());
  g_timeout_s = static_cast<unsigned>(seconds + 0.999);
  std::signal(SIGALRM, on_alarm);
  alarm(g_timeout_s);
}

}  // namespace commbench
