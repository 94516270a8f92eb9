// Steering the communication libraries to one network interface, through the environment
// they read at start-up. MPI reads its settings in MPI_Init and UCX in ucp_config_read,
// and neither listens to our --interface: left alone, Open MPI's tcp BTL listens on every
// interface (0.0.0.0 and [::]) and UCX opens a tcp listening socket on every device, even
// when all ranks share one host and nothing but shared memory carries their messages.
//
// Rules (a variable the user or the launcher already set is never overwritten; RDMA ports
// such as mlx5_0:1 are no IP interface and stay in every UCX device list we write):
// - an interface was asked for (--interface NAME, or an IP this host holds):
//   UCX_NET_DEVICES=NAME (UCX's tcp devices; MPICH here is ch4:ucx, so this steers MPICH
//   too) and, in Open MPI builds, OMPI_MCA_btl_tcp_if_include=NAME;
// - the launcher says every rank is on this host: in Open MPI builds OMPI_MCA_btl=self,vader
//   (Open MPI 4.1's tcp BTL binds the wildcard address whatever btl_tcp_if_include says;
//   vader carries everything within a host anyway), and, when no interface was asked for,
//   UCX_NET_DEVICES=<the loopback> so UCX listens on 127.0.0.1 only;
// - otherwise (several hosts, or a launcher that does not say), when this host has a
//   container or VM bridge (docker0, virbr0: the same subnet, often the same address, on
//   every host): UCX_NET_DEVICES=<the other interfaces> and, in Open MPI builds,
//   OMPI_MCA_btl_tcp_if_exclude=<Open MPI's default>,<the bridges>. Across two hosts that
//   both had docker0, Open MPI's tcp BTL otherwise connected to its own docker0 and the
//   job failed ("server accept cannot find guid"). Which interface reaches the peers is
//   only known after MPI_Init; harness/interface.hpp chooses ours then.
// Open MPI refuses btl_tcp_if_include and btl_tcp_if_exclude together: one is never set
// while the other is.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "comm/net_interfaces.hpp"

namespace commbench {

// What the launcher's environment says about where the ranks run, before MPI is up.
struct LauncherLayout {
  enum class Hosts { one, several, unknown };
  Hosts hosts = Hosts::unknown;
  std::string evidence;  // e.g. "OMPI_COMM_WORLD_LOCAL_SIZE=2 of OMPI_COMM_WORLD_SIZE=2"
};

using EnvLookup = std::function<const char*(const char*)>;

// Open MPI's mpirun (OMPI_COMM_WORLD_SIZE / _LOCAL_SIZE), MPICH's Hydra (PMI_SIZE /
// MPI_LOCALNRANKS), srun (SLURM_STEP_NUM_NODES), in that order; no launcher variable at
// all is a singleton (one host). Any other launcher: unknown.
LauncherLayout launcher_layout(const EnvLookup& env);

struct EnvSetting {
  std::string name;
  std::string value;
};

// What the rules read about this host.
struct SteeringInput {
  std::string interface_name;  // asked for; empty: none
  LauncherLayout::Hosts hosts = LauncherLayout::Hosts::unknown;
  std::string loopback;              // the loopback's name; empty: none
  std::vector<std::string> bridges;  // container/VM bridges that are up
  std::vector<std::string> others;   // every other up, non-loopback interface
  std::vector<std::string> rdma;     // RDMA ports (mlx5_0:1)
  bool open_mpi = false;
};

// The variables the rules above call for.
std::vector<EnvSetting> steering_plan(const SteeringInput& in);

struct LibrarySteering {
  std::string requested;       // --interface as given (name or IP; empty: none)
  std::string interface_name;  // the interface it names here ("": none, or not on this host)
  LauncherLayout layout;
  std::vector<EnvSetting> set;  // variables set here
  // Called for but not set: the value already in effect stays (or why it stays unset).
  std::vector<EnvSetting> kept;
};

// Applies the rules once per process, before MPI_Init and the first ucp_init; a later
// call returns the first call's record whatever it is passed (the MPI backend and the
// UCX worker call it with nothing for processes without a harness: unit tests, tools).
// A `requested` that names no interface here steers nothing (the caller reports it:
// with MPI up, for every rank at once, where a host that lacks it may not be rank 0's).
const LibrarySteering& steer_libraries(const std::string& requested);

// The variables that steer the libraries' choice of transport and interface, as they
// are now (nullopt: unset), in a fixed order: what the sidecar records as in effect.
std::vector<std::pair<std::string, std::optional<std::string>>> steering_variables();

}  // namespace commbench
