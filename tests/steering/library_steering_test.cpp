// What the library steering (steering/library_steering.hpp) reads from a launcher and what it
// would set, on invented environments: the launchers' variables were checked by hand
// (mpirun.openmpi, mpirun.mpich, srun) and are pinned here.
#include "steering/library_steering.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace commbench;

namespace {

LauncherLayout layout_of(const std::map<std::string, std::string>& env) {
  return launcher_layout([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::map<std::string, std::string> as_map(const std::vector<EnvSetting>& plan) {
  std::map<std::string, std::string> m;
  for (const auto& v : plan) m[v.name] = v.value;
  return m;
}

}  // namespace

TEST(LibrarySteering, OpenMpiLocalSizeTellsOneHost) {
  auto l = layout_of(
      {{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}, {"PMIX_RANK", "0"}});
  EXPECT_EQ(l.hosts, LauncherLayout::Hosts::one);
  EXPECT_EQ(l.evidence, "OMPI_COMM_WORLD_LOCAL_SIZE=2 of OMPI_COMM_WORLD_SIZE=2");
  EXPECT_EQ(layout_of({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}).hosts,
            LauncherLayout::Hosts::several);
}

TEST(LibrarySteering, HydraLocalRanksTellOneHost) {
  EXPECT_EQ(layout_of({{"PMI_SIZE", "3"}, {"MPI_LOCALNRANKS", "3"}, {"PMI_RANK", "1"}}).hosts,
            LauncherLayout::Hosts::one);
  EXPECT_EQ(layout_of({{"PMI_SIZE", "3"}, {"MPI_LOCALNRANKS", "1"}}).hosts,
            LauncherLayout::Hosts::several);
}

TEST(LibrarySteering, SrunStepNodes) {
  // srun --mpi=pmi2 sets PMI_SIZE but no MPI_LOCALNRANKS: the step's node count decides.
  EXPECT_EQ(layout_of({{"PMI_SIZE", "2"}, {"SLURM_STEP_NUM_NODES", "1"}}).hosts,
            LauncherLayout::Hosts::one);
  EXPECT_EQ(layout_of({{"PMIX_RANK", "0"}, {"SLURM_STEP_NUM_NODES", "2"}}).hosts,
            LauncherLayout::Hosts::several);
}

TEST(LibrarySteering, UnreadableLauncherIsUnknownAndNoLauncherIsOneHost) {
  EXPECT_EQ(layout_of({{"PMIX_RANK", "0"}}).hosts, LauncherLayout::Hosts::unknown);
  EXPECT_EQ(layout_of({{"OMPI_COMM_WORLD_SIZE", "x"}, {"OMPI_COMM_WORLD_RANK", "0"}}).hosts,
            LauncherLayout::Hosts::unknown);
  EXPECT_EQ(layout_of({}).hosts, LauncherLayout::Hosts::one);
}

SteeringInput host(LauncherLayout::Hosts hosts, const std::string& asked = "",
                   bool open_mpi = true) {
  SteeringInput in;
  in.interface_name = asked;
  in.hosts = hosts;
  in.loopback = "lo";
  in.others = {"eth0"};
  in.open_mpi = open_mpi;
  return in;
}

using Vars = std::map<std::string, std::string>;
constexpr auto kOne = LauncherLayout::Hosts::one;
constexpr auto kSeveral = LauncherLayout::Hosts::several;

TEST(LibrarySteering, OneHostDropsOpenMpisTcpBtlAndKeepsUcxOnLoopback) {
  EXPECT_EQ(as_map(steering_plan(host(kOne))),
            (Vars{{"OMPI_MCA_btl", "self,vader"}, {"UCX_NET_DEVICES", "lo"}}));
  // MPICH builds get no OMPI_ variables.
  EXPECT_EQ(as_map(steering_plan(host(kOne, "", false))), (Vars{{"UCX_NET_DEVICES", "lo"}}));
}

TEST(LibrarySteering, RequestedInterfaceSteersUcxAndTheTcpBtl) {
  EXPECT_EQ(as_map(steering_plan(host(kSeveral, "ib0"))),
            (Vars{{"UCX_NET_DEVICES", "ib0"}, {"OMPI_MCA_btl_tcp_if_include", "ib0"}}));
  // On one host the request wins for UCX, and vader still replaces the tcp BTL.
  EXPECT_EQ(as_map(steering_plan(host(kOne, "eth0"))),
            (Vars{{"UCX_NET_DEVICES", "eth0"},
                  {"OMPI_MCA_btl_tcp_if_include", "eth0"},
                  {"OMPI_MCA_btl", "self,vader"}}));
}

TEST(LibrarySteering, RdmaPortsStayAvailableToUcx) {
  // --interface names an IP network; InfiniBand's verbs devices are not one of them.
  SteeringInput in = host(kSeveral, "ib0");
  in.rdma = {"mlx5_0:1", "mlx5_1:1"};
  EXPECT_EQ(as_map(steering_plan(in))["UCX_NET_DEVICES"], "ib0,mlx5_0:1,mlx5_1:1");
  in = host(kOne);
  in.rdma = {"mlx5_0:1"};
  EXPECT_EQ(as_map(steering_plan(in))["UCX_NET_DEVICES"], "lo,mlx5_0:1");
}

TEST(LibrarySteering, SeveralHostsWithoutARequestSteerOnlyAroundBridges) {
  EXPECT_TRUE(steering_plan(host(kSeveral)).empty());
  SteeringInput in = host(kSeveral);
  in.bridges = {"docker0", "virbr0"};
  EXPECT_EQ(as_map(steering_plan(in)),
            (Vars{{"UCX_NET_DEVICES", "eth0"},
                  {"OMPI_MCA_btl_tcp_if_exclude", "127.0.0.1/8,sppp,docker0,virbr0"}}));
  // A launcher that does not say where its ranks are is treated alike.
  in.hosts = LauncherLayout::Hosts::unknown;
  EXPECT_EQ(as_map(steering_plan(in)).size(), 2u);
}
