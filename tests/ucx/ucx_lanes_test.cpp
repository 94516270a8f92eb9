// Reading UCX's endpoint description (ucx/ucx_lanes.hpp). The first two texts are what
// UCX 1.13.1 printed here for a two-rank endpoint by default and with UCX_TLS=tcp (a third
// lane added); the third is made up in their shape: an InfiniBand device, whose name holds
// a ':', and a lane that names no transport/device pair.
#include "ucx/ucx_lanes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using commbench::ucx::parse_lane_transports;

struct LanesCase {
  const char* name;
  const char* info;
  std::vector<std::string> transports;
};

const LanesCase kCases[] = {
    {"shared-memory endpoint",
     "#\n# UCP endpoint \n#\n#               peer: <no debug data>\n"
     "#                 lane[0]:  3:sysv/memory.0 md[2]           -> md[2]/sysv/sysdev[255] am "
     "am_bw#0\n"
     "#                 lane[1]:  5:cma/memory.0 md[4]            -> md[4]/cma/sysdev[255] "
     "rma_bw#0\n"
     "#\n#                tag_send: 0..<egr/short>..93..<egr/bcopy>..8256..<rndv>..(inf)\n",
     {"sysv/memory", "cma/memory"}},
    {"tcp lanes keep their devices in order, without repeats",
     "#                 lane[0]:  0:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] "
     "rma_bw#0 am am_bw#0\n"
     "#                 lane[1]:  1:tcp/eth0.0 md[0]              -> md[0]/tcp/sysdev[255] "
     "rma_bw#1 wireup\n"
     "#                 lane[2]:  0:tcp/lo.1 md[0]                -> md[0]/tcp/sysdev[255] "
     "rma_bw#2\n",
     {"tcp/lo", "tcp/eth0"}},
    {"device names with colons, and cm lanes",
     "#                 lane[0]:  7:rc_mlx5/mlx5_0:1.0 md[3]      -> md[3]/ib/sysdev[255] "
     "rma_bw#0 am\n"
     "#                 lane[1]: cm tcp\n",
     {"rc_mlx5/mlx5_0:1"}},
};

TEST(UcxLanes, ReadsTheTransportOfEveryLane) {
  for (const LanesCase& c : kCases)
    EXPECT_EQ(parse_lane_transports(c.info), c.transports) << c.name;
}

TEST(UcxLanes, NothingPrintedIsNothingFound) {
  EXPECT_TRUE(parse_lane_transports("").empty());
  EXPECT_TRUE(parse_lane_transports("#\n# UCP endpoint\n#\n").empty());
}
