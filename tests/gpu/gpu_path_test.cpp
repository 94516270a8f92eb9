// Choosing how device memory crosses a comm, and device discovery without a GPU.
#include "gpu/gpu_path.hpp"

#include <gtest/gtest.h>

#include "gpu/cuda_support.hpp"

using namespace commbench::gpu;

TEST(GpuPath, AutoPassesThroughOnlyWhenTheLibraryTakesDevicePointers) {
  EXPECT_EQ(choose_path("auto", true), GpuPath::pass_through);
  EXPECT_EQ(choose_path("auto", false), GpuPath::staged);
  EXPECT_EQ(choose_path("staged", true), GpuPath::staged);
  EXPECT_EQ(choose_path("pass-through", true), GpuPath::pass_through);
}

// CUDA IPC needs no library support: asked for, it is taken whatever the library says.
TEST(GpuPath, CudaIpcIsTakenWhenAskedFor) {
  EXPECT_EQ(choose_path("cuda-ipc", false), GpuPath::cuda_ipc);
  EXPECT_EQ(choose_path("cuda-ipc", true), GpuPath::cuda_ipc);
}

TEST(GpuPath, ImpossiblePathsAreOneLineErrors) {
  EXPECT_THROW(choose_path("pass-through", false), std::invalid_argument);
  EXPECT_THROW(choose_path("none", false), std::invalid_argument);
  EXPECT_THROW(choose_path("nvlink", false), std::invalid_argument);
}

TEST(GpuPath, NamesRoundTrip) {
  for (GpuPath p : {GpuPath::none, GpuPath::pass_through, GpuPath::staged, GpuPath::cuda_ipc})
    EXPECT_EQ(parse_gpu_path(to_string(p)), p);
}

TEST(GpuPath, MissingDeviceIsReportedNotFatal) {
  std::string why;
  DeviceOps* ops = device_ops(&why);
  if (ops) GTEST_SKIP() << "a device is present: " << ops->name();
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(device_ops(), nullptr);  // asking again is cheap and stable
}

TEST(CudaSupportQueries, AbsentLibrariesSayNo) {
  EXPECT_FALSE(mpi_reports_cuda_support());  // MPI is not initialized in this test
  EXPECT_FALSE(ucx_reports_cuda_support(nullptr));
}
