#include "harness/metadata.hpp"

#include <ucp/api/ucp.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commbench_git_commit.hpp"  // generated at build time
#include "gpu/gpu_path.hpp"
#include "harness/machine_ranks.hpp"
#include "harness/secret_env.hpp"

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

Json environment() {
  Json env = Json::object();
  // CUDA_MPS_: a run under NVIDIA's MPS daemon names its pipe directory (two ranks on one
  // GPU without MPS pay a GPU time-slice per copy: results/gpu-2026-11-29).
  static const char* prefixes[] = {"UCX_",     "OMPI_", "PMIX_MCA",   "MPIR_",
                                   "MPICH_",   "FI_",   "COMMBENCH_", "CUDA_VISIBLE_DEVICES",
                                   "CUDA_MPS_"};
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    for (const char* p : prefixes)
      if (kv.rfind(p, 0) == 0) {
        auto eq = kv.find('=');
        std::string name = kv.substr(0, eq);
        if (!is_secret_variable(name)) env[name] = eq == std::string::npos ? "" : kv.substr(eq + 1);
        break;
      }
  }
  return env;
}
}  // namespace

std::string sidecar_text(const Json& meta) {
  return meta.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string make_run_id(const Bootstrap& boot) {
  return boot.broadcast(utc_now("%Y%m%dT%H%M%SZ") + "-" + std::to_string(getpid()));
}

Json collect_metadata(const Bootstrap& boot, const std::vector<std::string>& argv,
                      const std::string& run_id, const Json& settings,
                      const LoadAverage& load_at_start) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::vector<std::string> hosts = boot.allgather(host);
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  Json versions;
  versions["compiler"] = std::string("g++ ") + __VERSION__;
  versions["mpi"] = Bootstrap::mpi_library_version();
  versions["ucx"] = ucp_get_version_string();
#ifdef COMMBENCH_HAVE_CUDA
  versions["cuda"] = std::to_string(COMMBENCH_CUDA_VERSION);
#else
  versions["cuda"] = "not built";
#endif
  versions["gpu"] = gpu::describe_gpu();
  versions["commbench"] = COMMBENCH_VERSION;
  Json meta;
  meta["run_id"] = run_id;
  meta["date_utc"] = utc_now("%Y-%m-%dT%H:%M:%SZ");
  meta["program"] = boot.program();
  meta["command_line"] = cmd;
  meta["git_commit"] = COMMBENCH_GIT_COMMIT;
  meta["mpi_flavor"] = Bootstrap::mpi_flavor();
  meta["ranks"] = boot.size();
  meta["hosts"] = hosts;
  meta["cpu_model"] = cpu_model();
  meta["cpus_online"] = sysconf(_SC_NPROCESSORS_ONLN);
  meta["machine"] = machine_state(load_at_start, boot.allgather(machine_id()));
  meta["versions"] = versions;
  meta["environment"] = environment();
  meta["settings"] = settings;
  return meta;
}

}  // namespace commbench
