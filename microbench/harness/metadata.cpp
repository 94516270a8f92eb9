#include "harness/metadata.hpp"

#include <ucp/api/ucp.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

#include "commbench_git_commit.hpp"  // generated at build time
#include "gpu/gpu_path.hpp"

extern char** environ;

namespace commbench {

namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto c = line.find(':');
      return c == std::string::npos ? line : line.substr(c + 2);
    }
  return "unknown";
}

std::string utc_now(const char* fmt) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

JsonObject environment() {
  JsonObject env;
  static const char* prefixes[] = {"UCX_",   "OMPI_", "PMIX_MCA",   "MPIR_",
                                   "MPICH_", "FI_",   "COMMBENCH_", "CUDA_VISIBLE_DEVICES"};
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    for (const char* p : prefixes)
      if (kv.rfind(p, 0) == 0) {
        auto eq = kv.find('=');
        env.add(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
        break;
      }
  }
  return env;
}
}  // namespace

std::string make_run_id(const Bootstrap& boot) {
  return boot.broadcast(utc_now("%Y%m%dT%H%M%SZ") + "-" + std::to_string(getpid()));
}

JsonObject collect_metadata(const Bootstrap& boot, const std::vector<std::string>& argv,
                            const std::string& run_id, const JsonObject& settings) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::vector<std::string> hosts = boot.allgather(host);
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  JsonObject versions;
  versions.add("compiler", std::string("g++ ") + __VERSION__)
      .add("mpi", Bootstrap::mpi_library_version())
      .add("ucx", ucp_get_version_string())
#ifdef COMMBENCH_HAVE_CUDA
      .add("cuda", std::to_string(COMMBENCH_CUDA_VERSION))
#else
      .add("cuda", "not built")
#endif
      .add("gpu", gpu::describe_gpu())
      .add("commbench", COMMBENCH_VERSION);
  JsonObject meta;
  meta.add("run_id", run_id)
      .add("date_utc", utc_now("%Y-%m-%dT%H:%M:%SZ"))
      .add("program", boot.program())
      .add("command_line", cmd)
      .add("git_commit", COMMBENCH_GIT_COMMIT)
      .add("mpi_flavor", Bootstrap::mpi_flavor())
      .add("ranks", static_cast<long long>(boot.size()))
      .add("hosts", hosts)
      .add("cpu_model", cpu_model())
      .add("cpus_online", static_cast<long long>(sysconf(_SC_NPROCESSORS_ONLN)))
      .add("versions", versions)
      .add("environment", environment())
      .add("settings", settings);
  return meta;
}

}  // namespace commbench
