// Whether the mpi:// backend offers device-memory pass-through: only when the library
// says it is CUDA-aware. Debian's Open MPI and MPICH are not, so with the real answer
// pass-through is refused; COMMBENCH_FAKE_CUDA_AWARE (gpu/cuda_support.hpp, test-only)
// stands in for a CUDA-aware build. Runs under mpirun with one rank (the backend
// initializes MPI itself).
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/registry.hpp"
#include "gpu/cuda_support.hpp"
#include "gpu/gpu_path.hpp"
#include "mpi/mpi_wire.hpp"

namespace commbench {
namespace {

// Sets COMMBENCH_FAKE_CUDA_AWARE for one test and restores "unset" after it.
class FakeCudaAware {
 public:
  explicit FakeCudaAware(const char* libraries) {
    setenv("COMMBENCH_FAKE_CUDA_AWARE", libraries, 1);
  }
  ~FakeCudaAware() { unsetenv("COMMBENCH_FAKE_CUDA_AWARE"); }
};

std::unique_ptr<Backend> make_mpi(EventLoop& loop) {
  return registry().create("mpi", loop, BackendOptions{});
}

TEST(MpiGpuPath, RealAnswerRefusesPassThroughWithAReason) {
  unsetenv("COMMBENCH_FAKE_CUDA_AWARE");
  EventLoop loop;
  auto backend = make_mpi(loop);
  // The backend reports exactly what the library says.
  ASSERT_EQ(backend->accepts_device_memory(), gpu::mpi_reports_cuda_support());
  if (backend->accepts_device_memory())
    GTEST_SKIP() << "this MPI is CUDA-aware: there is no refusal to check";
  EXPECT_EQ(gpu::choose_path("auto", backend->accepts_device_memory()), gpu::GpuPath::staged);
  try {
    gpu::choose_path("pass-through", backend->accepts_device_memory());
    FAIL() << "pass-through was accepted by a library without CUDA support";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("reports no CUDA support"), std::string::npos) << e.what();
  }
}

TEST(MpiGpuPath, FakedCudaAwareAnswerOffersPassThrough) {
  FakeCudaAware fake("mpi");
  EventLoop loop;
  auto backend = make_mpi(loop);
  EXPECT_TRUE(backend->accepts_device_memory());
  EXPECT_EQ(gpu::choose_path("auto", backend->accepts_device_memory()), gpu::GpuPath::pass_through);
  EXPECT_EQ(gpu::choose_path("pass-through", backend->accepts_device_memory()),
            gpu::GpuPath::pass_through);
}

TEST(MpiGpuPath, FakingAnotherLibraryLeavesMpiAlone) {
  EventLoop loop;
  auto backend = make_mpi(loop);
  const bool real = backend->accepts_device_memory();
  FakeCudaAware fake("ucx");
  EXPECT_EQ(backend->accepts_device_memory(), real);
  EXPECT_TRUE(gpu::cuda_support_faked("ucx"));
  EXPECT_FALSE(gpu::cuda_support_faked("mpi"));
}

TEST(MpiGpuPath, FakeListIsCommaSeparatedNames) {
  FakeCudaAware fake("ucx,mpi");
  EXPECT_TRUE(gpu::cuda_support_faked("mpi"));
  EXPECT_TRUE(gpu::cuda_support_faked("ucx"));
  setenv("COMMBENCH_FAKE_CUDA_AWARE", "mpix", 1);
  EXPECT_FALSE(gpu::cuda_support_faked("mpi"));
}

// With pass-through, MPI itself must read the device frame: the wire plan never inlines
// one behind the header (a host memcpy of device memory) nor sends it bare.
TEST(MpiGpuPath, DeviceFramesAreNeverInlined) {
  mpi::WireOptions w;  // packed, default eager budget
  std::vector<FrameInfo> frames{
      {8, MemoryKind::host}, {8, MemoryKind::cuda}, {0, MemoryKind::cuda}};
  std::vector<mpi::FramePlace> places(frames.size());
  auto plan = mpi::plan_message(std::span<const FrameInfo>(frames), w, true, std::span(places));
  EXPECT_EQ(plan.layout, mpi::Layout::packed);
  EXPECT_TRUE(places[0].is_inline());
  EXPECT_FALSE(places[1].is_inline());
  EXPECT_FALSE(places[2].is_inline());
  EXPECT_EQ(plan.inline_bytes, 8u);
  EXPECT_EQ(plan.frame_messages, 2u);
  std::vector<FrameInfo> one{{8, MemoryKind::cuda}};
  plan = mpi::plan_message(std::span<const FrameInfo>(one), w, true, std::span(places));
  EXPECT_NE(plan.layout, mpi::Layout::bare);
  EXPECT_FALSE(places[0].is_inline());
}

}  // namespace
}  // namespace commbench
