// StagedComm over real TCP comms in one process, with HostDeviceOps standing in for the
// GPU: "device" frames are host memory, but every staging copy is deferred until its
// lane is polled, so reusing a staging buffer too early or delivering before a copy
// finished shows up as wrong bytes; so does a copy() into device memory that a lane reads
// before it landed (the simulated default stream). Every byte of every frame is checked.
#include "gpu/staged_comm.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "comm/errors.hpp"
#include "comm/registry.hpp"
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

class StagedCommTest : public LoopFixture {
 protected:
  void SetUp() override {
    old_ = set_allocator(D, &device_alloc_);
    connect_timeout_ = std::chrono::seconds(5);  // a local tcp connect: 5 s is generous
    use_backend("tcp");
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    LoopFixture::TearDown();
    set_allocator(D, old_);
  }

  // Connects a pair over TCP and wraps both ends (each with its own fake device).
  void connect_staged(StagedOptions client_opt, StagedOptions server_opt) {
    run([&](CancelToken) -> Task<void> {
      std::unique_ptr<Comm> raw, accepted;
      co_await connect_pair(raw, accepted);
      auto c = std::make_unique<ObservingComm>(std::move(raw), client_ops_);
      auto s = std::make_unique<ObservingComm>(std::move(accepted), server_ops_);
      client_seen_ = c.get();
      server_seen_ = s.get();
      client_ = std::make_unique<StagedComm>(std::move(c), client_ops_, loop_, client_opt);
      server_ = std::make_unique<StagedComm>(std::move(s), server_ops_, loop_, server_opt);
    });
  }

  // Sends message `id` of `shape` from client to server: it must arrive whole, every
  // frame in `kind`.
  void expect_delivered(size_t id, const Shape& shape, MemoryKind kind) {
    run([&](CancelToken) -> Task<void> {
      PatternMessage out(id, shape);
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, id, shape), 0u);
      for (const auto& f : in.frames) EXPECT_EQ(f.kind, kind);
    });
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
  connect_staged(chunked(1000), chunked(1000));
  std::vector<Shape> shapes = {
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
      PatternMessage out(id, shapes[id]);
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, id, shapes[id]), 0u) << "message " << id;
      for (size_t f = 0; f < in.frames.size(); ++f)
        EXPECT_EQ(in.frames[f].kind, shapes[id][f].kind) << "message " << id << " frame " << f;
    }
  });
  EXPECT_GT(client_ops_.copies_issued(), 0u);
}

TEST_F(StagedCommTest, PipelineOverlapsCopiesWithTransfers) {
  connect_staged(chunked(4096), chunked(4096));
  Shape shape = {{64 * 4096 + 123, D}};
  run([&](CancelToken) -> Task<void> {
    PatternMessage out(7, shape);
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
  connect_staged(chunked(512), to_host);
  expect_delivered(3, {{100, D}, {3000, D}, {9, H}}, H);
}

TEST_F(StagedCommTest, HostFramesCanBeDeliveredToTheDevice) {
  StagedOptions to_dev = chunked(512);
  to_dev.deliver = D;
  connect_staged(chunked(512), to_dev);
  expect_delivered(4, {{100, H}, {3000, H}}, D);
  EXPECT_GT(server_ops_.copies_issued(), 0u);
}

TEST_F(StagedCommTest, ConcurrentWritesAndReadsKeepWholeMessagesInOrder) {
  connect_staged(chunked(256), chunked(256));
  constexpr size_t kWindow = 16;
  auto shape_of = [](size_t id) { return Shape{{8, H}, {100 + 97 * id, D}}; };
  run([&](CancelToken) -> Task<void> {
    std::vector<std::unique_ptr<PatternMessage>> outs;
    std::vector<Message> ins(kWindow);
    std::vector<Task<void>> ops;
    for (size_t id = 0; id < kWindow; ++id) {
      outs.push_back(std::make_unique<PatternMessage>(id, shape_of(id)));
      ops.push_back(client_->write(outs.back()->msg));
    }
    for (size_t id = 0; id < kWindow; ++id) ops.push_back(server_->read(ins[id]));
    co_await when_all(std::move(ops));
    for (size_t id = 0; id < kWindow; ++id)
      EXPECT_EQ(wrong_bytes(ins[id], id, shape_of(id)), 0u) << "message " << id;
  });
}

TEST_F(StagedCommTest, BidirectionalExchangeUsesSeparateLanes) {
  connect_staged(chunked(1024), chunked(1024));
  Shape a = {{20000, D}}, b = {{30001, D}};
  run([&](CancelToken) -> Task<void> {
    PatternMessage oa(1, a), ob(2, b);
    Message ia, ib;
    co_await when_all(client_->write(oa.msg), server_->write(ob.msg), server_->read(ia),
                      client_->read(ib));
    EXPECT_EQ(wrong_bytes(ia, 1, a), 0u);
    EXPECT_EQ(wrong_bytes(ib, 2, b), 0u);
  });
}

TEST_F(StagedCommTest, UnstagedPeerIsAProtocolError) {
  connect_staged(chunked(1024), chunked(1024));
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
  connect_staged(chunked(1024), chunked(1024));
  run([&](CancelToken) -> Task<void> {
    bool closed = co_await peer_close_fails_read(*server_, *client_);
    EXPECT_TRUE(closed);
  });
}

TEST_F(StagedCommTest, ReceivedDeviceStorageIsReleased) {
  connect_staged(chunked(1000), chunked(1000));
  Shape shape = {{5000, D}};
  run([&](CancelToken) -> Task<void> {
    PatternMessage out(9, shape);
    {
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, 9, shape), 0u);
      EXPECT_EQ(device_alloc_.live, 2 * 5000u);  // the sender's frame and the received one
    }
    EXPECT_EQ(device_alloc_.live, 5000u);
  });
}

// The benchmarks fill a device send buffer with copy() (cudaMemcpy from pageable memory,
// which may return before its bytes land, ordered on the legacy default stream) and
// write it at once; the lanes are non-blocking streams that do not wait for that. So
// write() must order its lane copies after the caller's default-stream work. The device
// frames are refilled for every message, as pingpong --validate does: a lane copy that
// reads a frame before its fill lands sends the previous message's bytes.
// Both ways of copying small inline messages keep the contract: lane copies ordered
// after the default stream, and blocking copies on it (StagedOptions::sync_copy_max).
StagedOptions chunked_sync(size_t bytes, size_t sync_copy_max) {
  StagedOptions o = chunked(bytes);
  o.sync_copy_max = sync_copy_max;
  return o;
}

TEST_F(StagedCommTest, WriteOrdersItsCopiesAfterTheCallersDefaultStreamWork) {
  for (size_t sync : {size_t{0}, size_t{1000}}) {
    connect_staged(chunked_sync(1000, sync), chunked_sync(1000, sync));
    std::vector<Shape> shapes = {
        {{1, D}},
        {{100, D}},
        {{10, H}, {1000, D}},           // inline, one lane
        {{3007, D}},                    // chunked over both send lanes
        {{5, H}, {700, D}, {2500, D}},  // chunked, two device frames
    };
    run([&](CancelToken) -> Task<void> {
      std::vector<Storage> dev(3);  // the sender's device frames, reused for every message
      for (size_t id = 0; id < 3 * shapes.size(); ++id) {
        const Shape& shape = shapes[id % shapes.size()];
        Shape on_host = shape;
        for (auto& f : on_host) f.kind = H;
        PatternMessage src(id, on_host);  // pageable host memory
        Message out;
        for (size_t f = 0; f < shape.size(); ++f) {
          Buffer b = src.msg.frames[f];
          if (shape[f].kind == D) {
            void* d = dev[f].reserve(b.size, D, &client_ops_.device_memory());
            client_ops_.copy(d, b.data, b.size);
            b = Buffer{d, b.size, D};
          }
          out.frames.push_back(b);
        }
        EXPECT_GT(client_ops_.default_pending(), 0u);  // the last fill has not landed
        Message in;
        co_await when_all(client_->write(out), server_->read(in));
        EXPECT_EQ(wrong_bytes(in, id, shape), 0u)
            << "message " << id << ", sync copies up to " << sync;
      }
    });
  }
}

// The other direction of the contract: work the caller issued on the default stream
// before read() and that still uses the destination (here a device-to-device copy() out
// of the last message, which may not have run when it returns) sees the old bytes, not
// the ones read() delivers into the reused frame.
TEST_F(StagedCommTest, ReadOrdersItsCopiesAfterTheCallersDefaultStreamWork) {
  for (int mode = 0; mode < 3; ++mode) {  // lanes, blocking copies, stream-ordered reads
    StagedOptions o = chunked_sync(1000, mode == 1 ? 1000 : 0);
    o.stream_ordered_reads = mode == 2;
    connect_staged(o, o);
    for (size_t n : {600u, 2500u}) {  // inline and chunked
      Shape shape = {{n, D}};
      PatternMessage first(1, shape), second(2, shape);
      // Received device frames come from the receiver's device, so its copy() knows them.
      set_allocator(D, &server_ops_.device_memory());
      run([&](CancelToken) -> Task<void> {
        Message in;
        co_await when_all(client_->write(first.msg), server_->read(in));
        Storage kept;
        void* k = kept.reserve(n, D, &server_ops_.device_memory());
        size_t pending = server_ops_.default_pending();  // stream-ordered reads' own
        server_ops_.copy(k, in.frames.at(0).data, n);
        EXPECT_EQ(server_ops_.default_pending(), pending + 1);  // queued on the default stream
        co_await when_all(client_->write(second.msg), server_->read(in));
        server_ops_.synchronize_default();
        Message copied({Buffer{k, n, D}});
        EXPECT_EQ(wrong_bytes(copied, 1, shape), 0u)
            << n << " bytes, mode " << mode << ": the copy saw read()'s bytes";
        EXPECT_EQ(wrong_bytes(in, 2, shape), 0u) << n << " bytes, mode " << mode;
      });
      set_allocator(D, &device_alloc_);
    }
  }
}

// The device frames of `m` as the host sees them after a cudaMemcpy out of each (copy():
// default-stream work issued now), in `keep`.
Message copied_to_host(HostDeviceOps& ops, const Message& m,
                       std::vector<std::vector<std::byte>>& keep) {
  keep.assign(m.frames.size(), {});
  Message out;
  for (size_t f = 0; f < m.frames.size(); ++f) {
    keep[f].resize(m.frames[f].size);
    if (m.frames[f].size) ops.copy(keep[f].data(), m.frames[f].data, m.frames[f].size);
    out.frames.push_back(Buffer{keep[f].data(), m.frames[f].size, H});
  }
  return out;
}

// Stream-ordered reads return with their copies into device frames queued, not landed
// (the host, unsynchronised, sees old bytes), and work issued on the default stream
// afterwards sees every byte: inline messages (copies on the default stream) and chunked
// ones (lane copies the default stream is made to wait for). Reads come in pairs with
// nothing between them, every shape after every other. (A read that reuses its staging
// buffers under the last read's unfinished copies fails the ReadOrders test above.)
TEST_F(StagedCommTest, StreamOrderedReadsLandBeforeLaterDefaultStreamWork) {
  StagedOptions o = chunked(1000);
  o.stream_ordered_reads = true;
  connect_staged(chunked(1000), o);
  std::vector<Shape> shapes = {
      {{8, D}},
      {{10, H}, {900, D}},            // inline
      {{2500, D}},                    // chunked over both receive lanes
      {{5, H}, {700, D}, {1800, D}},  // chunked, two device frames
      {{1001, D}},                    // chunked, one lane each
  };
  set_allocator(D, &server_ops_.device_memory());  // copy() must know the received frames
  run([&](CancelToken) -> Task<void> {
    Message in[2];
    std::vector<std::vector<std::byte>> keep;
    size_t id = 0;
    for (size_t a = 0; a < shapes.size(); ++a) {
      for (size_t b = 0; b < shapes.size(); ++b) {
        size_t ids[2] = {id, id + 1};
        const Shape* pair[2] = {&shapes[a], &shapes[b]};
        id += 2;
        for (int k = 0; k < 2; ++k) {
          PatternMessage out(ids[k], *pair[k]);
          co_await when_all(client_->write(out.msg), server_->read(in[k]));
          if (ids[k] == 0) {  // fresh frames, read as they are: the copies have not run yet
            EXPECT_GT(wrong_bytes(in[k], 0, *pair[k]), 0u) << "the read waited for its copies";
          }
        }
        for (int k = 0; k < 2; ++k) {
          Message host = copied_to_host(server_ops_, in[k], keep);
          EXPECT_EQ(wrong_bytes(host, ids[k], *pair[k]), 0u)
              << "shape " << (k ? b : a) << " read " << (k ? "second" : "first") << " after shape "
              << (k ? a : b);
        }
      }
    }
  });
  set_allocator(D, &device_alloc_);
}

// Small inline messages take the blocking copies (no lane copy on either side), larger
// ones the lanes, chunked ones the lanes always; every byte arrives either way.
TEST_F(StagedCommTest, SyncCopyMaxChoosesBlockingCopiesForSmallInlineMessagesOnly) {
  connect_staged(chunked_sync(1000, 64), chunked_sync(1000, 64));
  struct Case {
    Shape shape;
    bool lanes;
  };
  std::vector<Case> cases = {
      {{{8, D}}, false},          {{{10, H}, {60, D}}, false},  // host bytes do not count
      {{{40, D}, {40, D}}, true},                               // 80 device bytes
      {{{900, D}}, true},         {{{2500, D}}, true},          // chunked
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    size_t sent = client_ops_.copies_issued(), got = server_ops_.copies_issued();
    run([&](CancelToken) -> Task<void> {
      PatternMessage out(i, cases[i].shape);
      Message in;
      co_await when_all(client_->write(out.msg), server_->read(in));
      EXPECT_EQ(wrong_bytes(in, i, cases[i].shape), 0u) << "case " << i;
      for (size_t f = 0; f < in.frames.size(); ++f)
        EXPECT_EQ(in.frames[f].kind, cases[i].shape[f].kind) << "case " << i;
    });
    EXPECT_EQ(client_ops_.copies_issued() > sent, cases[i].lanes) << "case " << i;
    EXPECT_EQ(server_ops_.copies_issued() > got, cases[i].lanes) << "case " << i;
  }
}

// The simulated default stream itself: copy() into device memory from pageable memory
// lands late, lane copies do not wait for it unless ordered, copies out wait for it.
TEST(HostDeviceOps, DefaultStreamCopiesLandInOrderAndLanesWaitOnlyWhenOrdered) {
  HostDeviceOps ops(1);
  auto* d = static_cast<unsigned char*>(ops.device_memory().allocate(4));
  auto* pinned = static_cast<unsigned char*>(ops.pinned_memory().allocate(4));
  unsigned char src[4] = {1, 2, 3, 4}, out[4] = {};
  std::memset(d, 0, 4);
  ops.copy(d, src, 4);
  src[0] = 9;  // the source was read at the call
  ops.copy_async(pinned, d, 4, 0);
  while (!ops.lane_idle(0)) {
  }
  EXPECT_EQ(pinned[0], 0);  // an unordered lane copy read the device before the fill landed
  ops.order_after_default(1);
  ops.copy_async(pinned, d, 4, 1);
  EXPECT_EQ(ops.default_pending(), 1u);
  while (!ops.lane_idle(1)) {
  }
  EXPECT_EQ(ops.default_pending(), 0u);
  EXPECT_EQ(pinned[0], 1);
  EXPECT_EQ(pinned[3], 4);
  src[0] = 7;
  ops.copy(d, src, 1);
  ops.copy(out, d, 4);  // device to host waits for it
  EXPECT_EQ(out[0], 7);
  ops.pinned_memory().deallocate(pinned, 4);
  ops.device_memory().deallocate(d, 4);
}

// kDefaultLane copies run in default-stream order; order_default_after makes the default
// stream's later work (not its earlier work) wait for a lane's copies.
TEST(HostDeviceOps, DefaultStreamWaitsForALaneOnlyWhenOrderedAfterIt) {
  HostDeviceOps ops(3);
  auto* d = static_cast<unsigned char*>(ops.device_memory().allocate(4));
  auto* pinned = static_cast<unsigned char*>(ops.pinned_memory().allocate(4));
  unsigned char out[4] = {};
  std::memset(d, 0, 4);
  for (int i = 0; i < 4; ++i) pinned[i] = static_cast<unsigned char>(i + 1);
  ops.copy_async(d, pinned, 4, 2);
  ops.copy(out, d, 4);  // not ordered after lane 2: sees the old bytes
  EXPECT_EQ(out[0], 0);
  ops.order_default_after(2);
  ops.copy(out, d, 4);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[3], 4);
  EXPECT_TRUE(ops.lane_idle(2));  // finished by the default stream

  pinned[0] = 7;
  ops.copy_async(d, pinned, 1, DeviceOps::kDefaultLane);
  EXPECT_TRUE(ops.busy(DeviceOps::kDefaultLane));
  EXPECT_EQ(d[0], 1);   // queued, not landed
  ops.copy(out, d, 4);  // later default-stream work sees it
  EXPECT_EQ(out[0], 7);
  EXPECT_TRUE(ops.lane_idle(DeviceOps::kDefaultLane));

  pinned[0] = 8;
  ops.copy_async(d, pinned, 1, DeviceOps::kDefaultLane);
  int polls = 1;
  while (!ops.lane_idle(DeviceOps::kDefaultLane)) ++polls;
  EXPECT_EQ(polls, 3);  // lands after polls_per_copy polls, as a lane's copy does
  EXPECT_EQ(d[0], 8);
  EXPECT_THROW(ops.order_default_after(DeviceOps::kDefaultLane + 1), std::invalid_argument);
  ops.pinned_memory().deallocate(pinned, 4);
  ops.device_memory().deallocate(d, 4);
}

TEST(StagedCommOptions, ZeroChunkIsRejected) {
  EventLoop loop;
  HostDeviceOps ops;
  StagedOptions o;
  o.chunk_bytes = 0;
  EXPECT_THROW(StagedComm(nullptr, ops, loop, o), std::invalid_argument);
}
