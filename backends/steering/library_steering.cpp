#include "steering/library_steering.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace commbench {

namespace {

constexpr bool kOpenMpi =
#if defined(OPEN_MPI) && OPEN_MPI
    true;
#else
    false;
#endif

// Positive integer or -1.
long count(const char* v) {
  if (!v || !*v) return -1;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  return (*end == '\0' && n > 0) ? n : -1;
}

LauncherLayout compare(const EnvLookup& env, const char* local_var, const char* world_var) {
  long local = count(env(local_var)), world = count(env(world_var));
  LauncherLayout l;
  if (local < 0 || world < 0) return l;
  l.hosts = local == world ? LauncherLayout::Hosts::one : LauncherLayout::Hosts::several;
  l.evidence = std::string(local_var) + "=" + std::to_string(local) + " of " + world_var + "=" +
               std::to_string(world);
  return l;
}

}  // namespace

LauncherLayout launcher_layout(const EnvLookup& env) {
  LauncherLayout l = compare(env, "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE");
  if (l.hosts != LauncherLayout::Hosts::unknown) return l;
  l = compare(env, "MPI_LOCALNRANKS", "PMI_SIZE");
  if (l.hosts != LauncherLayout::Hosts::unknown) return l;
  if (long nodes = count(env("SLURM_STEP_NUM_NODES")); nodes > 0) {
    l.hosts = nodes == 1 ? LauncherLayout::Hosts::one : LauncherLayout::Hosts::several;
    l.evidence = "SLURM_STEP_NUM_NODES=" + std::to_string(nodes);
    return l;
  }
  // A launcher we cannot read: its ranks may be anywhere.
  for (const char* v :
       {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "PMI_SIZE", "SLURM_PROCID"})
    if (env(v)) {
      l.evidence = std::string(v) + " set, but no variable that counts hosts";
      return l;
    }
  l.hosts = LauncherLayout::Hosts::one;
  l.evidence = "no launcher (one process)";
  return l;
}

std::vector<EnvSetting> steering_plan(const SteeringInput& in) {
  auto devices = [&](std::vector<std::string> ip) {
    ip.insert(ip.end(), in.rdma.begin(), in.rdma.end());
    std::string out;
    for (const auto& d : ip) out += (out.empty() ? "" : ",") + d;
    return out;
  };
  bool one_host = in.hosts == LauncherLayout::Hosts::one;
  std::vector<EnvSetting> plan;
  if (!in.interface_name.empty()) {
    plan.push_back({"UCX_NET_DEVICES", devices({in.interface_name})});
    if (in.open_mpi) plan.push_back({"OMPI_MCA_btl_tcp_if_include", in.interface_name});
  } else if (one_host) {
    if (!in.loopback.empty()) plan.push_back({"UCX_NET_DEVICES", devices({in.loopback})});
  } else if (!in.bridges.empty()) {
    if (!in.others.empty()) plan.push_back({"UCX_NET_DEVICES", devices(in.others)});
    if (in.open_mpi) {
      std::string exclude = "127.0.0.1/8,sppp";  // Open MPI's own default, kept
      for (const auto& b : in.bridges) exclude += "," + b;
      plan.push_back({"OMPI_MCA_btl_tcp_if_exclude", exclude});
    }
  }
  if (one_host && in.open_mpi) plan.push_back({"OMPI_MCA_btl", "self,vader"});
  return plan;
}

const LibrarySteering& steer_libraries(const std::string& requested) {
  static std::unique_ptr<LibrarySteering> done;
  if (done) return *done;
  auto s = std::make_unique<LibrarySteering>();
  s->requested = requested;
  auto interfaces = local_ipv4_interfaces();
  SteeringInput in;
  if (!requested.empty())
    if (const NetInterface* n = find_interface(interfaces, requested)) in.interface_name = n->name;
  s->interface_name = in.interface_name;
  s->layout = launcher_layout([](const char* v) { return std::getenv(v); });
  in.hosts = s->layout.hosts;
  if (const NetInterface* lo = find_loopback(interfaces)) in.loopback = lo->name;
  for (const auto& n : interfaces) {
    if (!n.up || n.loopback) continue;
    auto& list = is_virtual_bridge(n.name) ? in.bridges : in.others;
    if (std::find(list.begin(), list.end(), n.name) == list.end()) list.push_back(n.name);
  }
  in.rdma = rdma_ports();
  in.open_mpi = kOpenMpi;
  for (auto& v : steering_plan(in)) {
    // Open MPI refuses btl_tcp_if_include next to btl_tcp_if_exclude.
    const char* other = v.name == "OMPI_MCA_btl_tcp_if_include"   ? "OMPI_MCA_btl_tcp_if_exclude"
                        : v.name == "OMPI_MCA_btl_tcp_if_exclude" ? "OMPI_MCA_btl_tcp_if_include"
                                                                  : nullptr;
    if (const char* have = std::getenv(v.name.c_str())) {
      s->kept.push_back({v.name, have});
      continue;
    }
    if (other && std::getenv(other)) {
      s->kept.push_back({v.name, std::string("unset: ") + other + " is set"});
      continue;
    }
    setenv(v.name.c_str(), v.value.c_str(), 0);
    s->set.push_back(std::move(v));
  }
  done = std::move(s);
  return *done;
}

std::vector<std::pair<std::string, std::optional<std::string>>> steering_variables() {
  static const char* names[] = {"UCX_NET_DEVICES",
                                "UCX_TLS",
                                "OMPI_MCA_btl",
                                "OMPI_MCA_btl_tcp_if_include",
                                "OMPI_MCA_btl_tcp_if_exclude",
                                "OMPI_MCA_pml",
                                "OMPI_MCA_oob_tcp_if_include"};
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  for (const char* n : names) {
    const char* v = std::getenv(n);
    out.emplace_back(n, v ? std::optional<std::string>(v) : std::nullopt);
  }
  return out;
}

}  // namespace commbench
