// CudaIpcComm over real TCP comms in one process, each end with its own simulated device
// (host memory standing in for the GPU: copies complete only after their lane is polled,
// and each device's default stream lands a cudaMemcpy into device memory late; the
// receiver maps the sender's allocations through their memfds, as a second process
// would). Every byte is checked. The
// two-process path (the benchmarks and applications under COMMBENCH_SIMULATE_GPU, where
// the device memory is shared memory) is checked by CTest; the real device by the GPU script.
#include "gpu/cuda_ipc_comm.hpp"

#include <gtest/gtest.h>

#include "comm/errors.hpp"
#include "gpu/host_device_ops.hpp"
#include "gpu_test_support.hpp"
#include "loop_fixture.hpp"
#include "pattern_message.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace commbench::gpu;
using namespace commbench::testing;
using namespace std::chrono_literals;

namespace {

using gpu_test::D;
using gpu_test::H;

class CudaIpcCommTest : public LoopFixture {
 protected:
  void SetUp() override {
    old_ = set_allocator(D, &ops_.device_memory());  // the sender's device
    connect_timeout_ = std::chrono::seconds(5);
    use_backend("tcp");
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    LoopFixture::TearDown();
    set_allocator(D, old_);
  }
  void connect(CudaIpcOptions server_opt = {}) {
    run([&](CancelToken) -> Task<void> {
      std::unique_ptr<Comm> raw, accepted;
      co_await connect_pair(raw, accepted);
      raw_client_ = raw.get();
      client_ = std::make_unique<CudaIpcComm>(std::move(raw), ops_, loop_);
      server_ = std::make_unique<CudaIpcComm>(std::move(accepted), peer_ops_, loop_, server_opt);
    });
  }

  MemoryAllocator* old_ = nullptr;
  HostDeviceOps ops_{3}, peer_ops_{2};  // the client's device, the server's
  std::unique_ptr<CudaIpcComm> client_, server_;
  Comm* raw_client_ = nullptr;
};

TEST_F(CudaIpcCommTest, MessagesArriveByteForByteInTheSendersKinds) {
  connect();
  std::vector<Shape> shapes = {
      {{1, D}},       {{0, D}}, {{4096, D}}, {{10, H}, {70000, D}, {0, H}, {3, D}},
      {{1 << 20, D}}, {{5, H}},
  };
  run([&](CancelToken) -> Task<void> {
    for (size_t id = 0; id < shapes.size(); ++id) {
      PatternMessage out(id, shapes[id]);
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, id, shapes[id]), 0u) << "message " << id;
      for (size_t f = 0; f < in.frames.size(); ++f)
        EXPECT_EQ(in.frames[f].kind, shapes[id][f].kind) << "message " << id;
    }
  });
}

TEST_F(CudaIpcCommTest, ReceiverChoosesTheDeliveredKind) {
  for (MemoryKind as : {H, D}) {
    CudaIpcOptions o;
    o.deliver = as;
    connect(o);
    Shape shape = {{100, D}, {7, H}, {5000, D}};
    run([&](CancelToken) -> Task<void> {
      PatternMessage out(1, shape);
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, 1, shape), 0u);
      for (const auto& f : in.frames) EXPECT_EQ(f.kind, as);
    });
  }
}

// Each allocation is exported once and opened once, however often it is sent.
TEST_F(CudaIpcCommTest, HandlesAreExportedAndOpenedOncePerAllocation) {
  connect();
  Shape shape = {{3000, D}};
  PatternMessage out(7, shape);
  run([&](CancelToken) -> Task<void> {
    for (int i = 0; i < 5; ++i) {
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, 7, shape), 0u);
    }
  });
  EXPECT_EQ(client_->exports(), 1u);
  EXPECT_EQ(server_->opens(), 1u);
}

// write() returns only once the peer's copy out of the sender's buffer is complete: until
// the peer reads, the write waits, so the caller cannot overwrite a buffer still in use.
TEST_F(CudaIpcCommTest, WriteReturnsOnlyAfterThePeerCopiedTheBuffer) {
  connect();
  Shape shape = {{2048, D}};
  PatternMessage out(3, shape);
  run([&](CancelToken) -> Task<void> {
    bool written = false;
    auto writer = [&]() -> Task<void> {
      co_await client_->write(out.msg);
      written = true;
    };
    auto reader = [&]() -> Task<void> {
      for (int i = 0; i < 20; ++i) co_await loop_.yield();
      EXPECT_FALSE(written) << "write returned before the peer read";
      Message in;
      co_await server_->read(in);
      EXPECT_EQ(wrong_bytes(in, 3, shape), 0u);
    };
    co_await when_all(writer(), reader());
    EXPECT_TRUE(written);
  });
}

// Both directions at once: each end's reads and its writes' acknowledgements share one
// inner read, and neither waits for the other.
TEST_F(CudaIpcCommTest, BothDirectionsAtOnce) {
  connect();
  Shape shape = {{9000, D}, {4, H}};
  run([&](CancelToken) -> Task<void> {
    // Each end sends from its own device's memory.
    auto send = [&](CudaIpcComm& c, HostDeviceOps& dev, size_t first) -> Task<void> {
      for (size_t i = 0; i < 10; ++i) {
        MemoryAllocator* before = set_allocator(D, &dev.device_memory());
        PatternMessage m(first + i, shape);
        set_allocator(D, before);
        co_await c.write(m.msg);
      }
    };
    auto receive = [&](CudaIpcComm& c, size_t first) -> Task<void> {
      for (size_t i = 0; i < 10; ++i) {
        Message in;
        co_await c.read(in);
        EXPECT_EQ(wrong_bytes(in, first + i, shape), 0u) << i;
      }
    };
    co_await when_all(send(*client_, ops_, 100), receive(*server_, 100),
                      send(*server_, peer_ops_, 200), receive(*client_, 200));
  });
}

// The ordering contract of StagedComm: a device buffer filled by copy() (which may land
// late on the sender's default stream, which the receiver's copy cannot wait for) is sent
// with its new bytes.
TEST_F(CudaIpcCommTest, WriteSeesTheCallersDefaultStreamWork) {
  connect();
  Shape shape = {{600, D}};
  run([&](CancelToken) -> Task<void> {
    Storage dev;
    void* d = dev.reserve(600, D, &ops_.device_memory());
    for (size_t id = 0; id < 4; ++id) {
      PatternMessage src(id, {{600, H}});
      ops_.copy(d, src.msg.frames[0].data, 600);
      EXPECT_GT(ops_.default_pending(), 0u);
      Message out({Buffer{d, 600, D}}), in;
      co_await when_all(client_->write(out), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, id, shape), 0u) << "message " << id;
    }
  });
}

TEST_F(CudaIpcCommTest, APeerWithoutCudaIpcIsAProtocolError) {
  connect();
  run([&](CancelToken) -> Task<void> {
    PatternMessage plain(1, {{8, H}});
    Message in;
    bool threw = false;
    try {
      co_await when_all(raw_client_->write(plain.msg), server_->read(in));
    } catch (const ProtocolError&) {
      threw = true;
    }
    EXPECT_TRUE(threw);
  });
}

TEST_F(CudaIpcCommTest, PeerCloseFailsAPendingRead) {
  connect();
  run([&](CancelToken) -> Task<void> {
    Message in;
    bool closed = false;
    auto reader = [&]() -> Task<void> {
      try {
        co_await server_->read(in);
      } catch (const CommClosedError&) {
        closed = true;
      }
    };
    co_await when_all(reader(), client_->close());
    EXPECT_TRUE(closed);
  });
}

}  // namespace
