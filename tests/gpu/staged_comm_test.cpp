// StagedComm over real TCP comms in one process, with HostDeviceOps standing in for the
// GPU: "device" frames are host memory, but every staging copy is deferred until its
// lane is polled, so reusing a staging buffer too early or delivering before a copy
// finished shows up as wrong bytes. Every byte of every frame is checked.
#include "gpu/staged_comm.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "comm/errors.hpp"
#include "comm/registry.hpp"
#include "gpu/host_device_ops.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace commbench::gpu;
using namespace std::chrono_literals;

namespace {

constexpr auto H = MemoryKind::host;
constexpr auto D = MemoryKind::cuda;

uint8_t byte_at(size_t msg, size_t frame, size_t i) {
  return static_cast<uint8_t>((msg * 131 + frame * 29 + i * 7 + (i >> 8)) & 0xff);
}

// Frames owned by the test, in fake device memory or host memory.
struct Outgoing {
  std::vector<Storage> store;
  Message msg;
  Outgoing(size_t id, const std::vector<std::pair<size_t, MemoryKind>>& shape) {
    store.resize(shape.size());
    for (size_t f = 0; f < shape.size(); ++f) {
      auto [size, kind] = shape[f];
      auto* p = static_cast<uint8_t*>(store[f].reserve(size, kind));
      for (size_t i = 0; i < size; ++i) p[i] = byte_at(id, f, i);
      msg.frames.push_back(Buffer{p, size, kind});
    }
  }
};

size_t wrong_bytes(const Message& m, size_t id,
                   const std::vector<std::pair<size_t, MemoryKind>>& shape) {
  if (m.frames.size() != shape.size()) return ~size_t{0};
  size_t wrong = 0;
  for (size_t f = 0; f < shape.size(); ++f) {
    if (m.frames[f].size != shape[f].first) return ~size_t{0};
    auto* p = static_cast<const uint8_t*>(m.frames[f].data);
    for (size_t i = 0; i < shape[f].first; ++i) wrong += p[i] != byte_at(id, f, i);
  }
  return wrong;
}

// Sits between StagedComm and TCP and notes, for every inner write and read, whether a
// staging copy was still pending when it started: that is the overlap the pipeline is for.
class ObservingComm final : public Comm {
 public:
  ObservingComm(std::unique_ptr<Comm> inner, HostDeviceOps& ops)
      : inner_(std::move(inner)), ops_(ops) {}
  Task<void> write(const Message& m, CancelToken t) override {
    ++writes;
    writes_during_copy += ops_.busy(0) || ops_.busy(1);
    return inner_->write(m, t);
  }
  Task<void> read(Message& m, CancelToken t) override {
    ++reads;
    reads_during_copy += ops_.busy(2) || ops_.busy(3);
    return inner_->read(m, t);
  }
  Task<void> close() override { return inner_->close(); }
  void abort() noexcept override { inner_->abort(); }
  bool closed() const noexcept override { return inner_->closed(); }
  std::string local_address() const override { return inner_->local_address(); }
  std::string peer_address() const override { return inner_->peer_address(); }
  size_t writes = 0, writes_during_copy = 0, reads = 0, reads_during_copy = 0;

 private:
  std::unique_ptr<Comm> inner_;
  HostDeviceOps& ops_;
};

class StagedCommTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = set_allocator(D, &device_alloc_);
    backend_ = registry().create("tcp", loop_);
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    set_allocator(D, old_);
  }

  // Connects a pair over TCP and wraps both ends (each with its own fake device).
  void connect_pair(StagedOptions client_opt, StagedOptions server_opt) {
    run([&](CancelToken) -> Task<void> {
      std::unique_ptr<Comm> accepted;
      listener_ = backend_->make_listener(backend_->default_listen_address("127.0.0.1"));
      co_await listener_->start([&](std::unique_ptr<Comm> c) -> Task<void> {
        accepted = std::move(c);
        co_return;
      });
      auto raw = co_await backend_->make_connector()->connect(listener_->contact_address(), 5s);
      while (!accepted) co_await loop_.sleep_for(100us);
      auto c = std::make_unique<ObservingComm>(std::move(raw), client_ops_);
      auto s = std::make_unique<ObservingComm>(std::move(accepted), server_ops_);
      client_seen_ = c.get();
      server_seen_ = s.get();
      client_ = std::make_unique<StagedComm>(std::move(c), client_ops_, loop_, client_opt);
      server_ = std::make_unique<StagedComm>(std::move(s), server_ops_, loop_, server_opt);
    });
  }

  template <typename F>
  void run(F body) {
    loop_.run(with_timeout(loop_, 30s, [&](CancelToken t) -> Task<void> { co_await body(t); }));
  }

  // The fake device allocator for MemoryKind::cuda (host memory that counts itself).
  struct CountingAlloc final : MemoryAllocator {
    size_t live = 0;
    void* allocate(size_t n) override {
      live += n;
      return ::operator new(n == 0 ? 1 : n);
    }
    void deallocate(void* p, size_t n) noexcept override {
      live -= n;
      ::operator delete(p);
    }
  } device_alloc_;
  MemoryAllocator* old_ = nullptr;
  EventLoop loop_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Listener> listener_;
  HostDeviceOps client_ops_{3}, server_ops_{2};
  std::unique_ptr<StagedComm> client_, server_;
  ObservingComm *client_seen_ = nullptr, *server_seen_ = nullptr;
};

StagedOptions chunked(size_t bytes) {
  StagedOptions o;
  o.chunk_bytes = bytes;
  return o;
}

}  // namespace

TEST_F(StagedCommTest, MixedMessagesArriveByteForByteInTheSendersKinds) {
  connect_pair(chunked(1000), chunked(1000));
  std::vector<std::vector<std::pair<size_t, MemoryKind>>> shapes = {
      {},
      {{0, D}},
      {{1, D}},
      {{10, H}, {100, D}},
      {{1000, D}},          // exactly one chunk: inline
      {{1001, D}},          // one byte over: two chunks
      {{3 * 1000 + 7, D}},  // odd tail
      {{5, H}, {2500, D}, {17, H}, {4096, D}, {0, D}},
      {{70000, H}},
  };
  run([&](CancelToken) -> Task<void> {
    for (size_t id = 0; id < shapes.size(); ++id) {
      Outgoing out(id, shapes[id]);
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, id, shapes[id]), 0u) << "message " << id;
      for (size_t f = 0; f < in.frames.size(); ++f)
        EXPECT_EQ(in.frames[f].kind, shapes[id][f].second) << "message " << id << " frame " << f;
    }
  });
  EXPECT_GT(client_ops_.copies_issued(), 0u);
}

TEST_F(StagedCommTest, PipelineOverlapsCopiesWithTransfers) {
  connect_pair(chunked(4096), chunked(4096));
  std::vector<std::pair<size_t, MemoryKind>> shape = {{64 * 4096 + 123, D}};
  run([&](CancelToken) -> Task<void> {
    Outgoing out(7, shape);
    Message in;
    co_await when_all(client_->write(out.msg), server_->read(in));
    EXPECT_EQ(wrong_bytes(in, 7, shape), 0u);
  });
  // 65 chunks plus the head: every chunk's transfer but the last started while the next
  // chunk's device-to-host copy was in flight, and on the receiver every chunk but the
  // first was read while the previous one's host-to-device copy was still running.
  EXPECT_EQ(client_ops_.copies_issued(), 65u);
  EXPECT_EQ(server_ops_.copies_issued(), 65u);
  EXPECT_EQ(client_seen_->writes, 66u);
  EXPECT_EQ(server_seen_->reads, 66u);
  EXPECT_GE(client_seen_->writes_during_copy, 64u);
  EXPECT_GE(server_seen_->reads_during_copy, 32u);
}

TEST_F(StagedCommTest, ReceiverChoosesTheDeliveredKind) {
  StagedOptions to_host = chunked(512);
  to_host.deliver = H;
  connect_pair(chunked(512), to_host);
  std::vector<std::pair<size_t, MemoryKind>> shape = {{100, D}, {3000, D}, {9, H}};
  run([&](CancelToken) -> Task<void> {
    Outgoing out(3, shape);
    Message in;
    co_await when_all(client_->write(out.msg), server_->read(in));
    EXPECT_EQ(wrong_bytes(in, 3, shape), 0u);
    for (const auto& f : in.frames) EXPECT_EQ(f.kind, H);
  });
}

TEST_F(StagedCommTest, HostFramesCanBeDeliveredToTheDevice) {
  StagedOptions to_dev = chunked(512);
  to_dev.deliver = D;
  connect_pair(chunked(512), to_dev);
  std::vector<std::pair<size_t, MemoryKind>> shape = {{100, H}, {3000, H}};
  run([&](CancelToken) -> Task<void> {
    Outgoing out(4, shape);
    Message in;
    co_await when_all(client_->write(out.msg), server_->read(in));
    EXPECT_EQ(wrong_bytes(in, 4, shape), 0u);
    for (const auto& f : in.frames) EXPECT_EQ(f.kind, D);
  });
  EXPECT_GT(server_ops_.copies_issued(), 0u);
}

TEST_F(StagedCommTest, ConcurrentWritesAndReadsKeepWholeMessagesInOrder) {
  connect_pair(chunked(256), chunked(256));
  constexpr size_t kWindow = 16;
  auto shape_of = [](size_t id) {
    return std::vector<std::pair<size_t, MemoryKind>>{{8, H}, {100 + 97 * id, D}};
  };
  run([&](CancelToken) -> Task<void> {
    std::vector<std::unique_ptr<Outgoing>> outs;
    std::vector<Message> ins(kWindow);
    std::vector<Task<void>> ops;
    for (size_t id = 0; id < kWindow; ++id) {
      outs.push_back(std::make_unique<Outgoing>(id, shape_of(id)));
      ops.push_back(client_->write(outs.back()->msg));
    }
    for (size_t id = 0; id < kWindow; ++id) ops.push_back(server_->read(ins[id]));
    co_await when_all(std::move(ops));
    for (size_t id = 0; id < kWindow; ++id)
      EXPECT_EQ(wrong_bytes(ins[id], id, shape_of(id)), 0u) << "message " << id;
  });
}

TEST_F(StagedCommTest, BidirectionalExchangeUsesSeparateLanes) {
  connect_pair(chunked(1024), chunked(1024));
  std::vector<std::pair<size_t, MemoryKind>> a = {{20000, D}}, b = {{30001, D}};
  run([&](CancelToken) -> Task<void> {
    Outgoing oa(1, a), ob(2, b);
    Message ia, ib;
    co_await when_all(client_->write(oa.msg), server_->write(ob.msg), server_->read(ia),
                      client_->read(ib));
    EXPECT_EQ(wrong_bytes(ia, 1, a), 0u);
    EXPECT_EQ(wrong_bytes(ib, 2, b), 0u);
  });
}

TEST_F(StagedCommTest, UnstagedPeerIsAProtocolError) {
  connect_pair(chunked(1024), chunked(1024));
  run([&](CancelToken) -> Task<void> {
    char junk[40] = "not a staged descriptor";
    Message bad({Buffer{junk, sizeof junk, H}});
    co_await client_->inner().write(bad);
    Message in;
    bool threw = false;
    try {
      co_await server_->read(in);
    } catch (const ProtocolError&) {
      threw = true;
    }
    EXPECT_TRUE(threw);
  });
}

TEST_F(StagedCommTest, PeerCloseFailsAPendingRead) {
  connect_pair(chunked(1024), chunked(1024));
  run([&](CancelToken) -> Task<void> {
    bool closed = false;
    auto reader = [&]() -> Task<void> {
      Message in;
      try {
        co_await server_->read(in);
      } catch (const CommClosedError&) {
        closed = true;
      }
    };
    auto closer = [&]() -> Task<void> {
      co_await loop_.sleep_for(1ms);
      co_await client_->close();
    };
    co_await when_all(reader(), closer());
    EXPECT_TRUE(closed);
  });
}

TEST_F(StagedCommTest, ReceivedDeviceStorageIsReleased) {
  connect_pair(chunked(1000), chunked(1000));
  std::vector<std::pair<size_t, MemoryKind>> shape = {{5000, D}};
  run([&](CancelToken) -> Task<void> {
    Outgoing out(9, shape);
    {
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, 9, shape), 0u);
      EXPECT_EQ(device_alloc_.live, 2 * 5000u);  // the sender's frame and the received one
    }
    EXPECT_EQ(device_alloc_.live, 5000u);
  });
}

TEST(StagedCommOptions, ZeroChunkIsRejected) {
  EventLoop loop;
  HostDeviceOps ops;
  StagedOptions o;
  o.chunk_bytes = 0;
  EXPECT_THROW(StagedComm(nullptr, ops, loop, o), std::invalid_argument);
}
