// One mpi:// connection: a Channel (peer, incoming/outgoing routes) driven
// through the backend's Engine. See mpi_wire.hpp for the message shapes and
// mpi_context.hpp for the tag and close protocol.
//
// Ordering: MPI matches messages between two ranks on one (communicator, tag) in the
// order they were posted (on a lane every receive takes any tag, so there too), so a write posts
// all of its MPI messages without suspending in between (no lock: concurrent writes cannot
// interleave) and then waits for them. A read holds the read lock only until it has *posted* the
// receives of its message, so the next read's header receive cannot match this message's frames.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm/frame_header.hpp"
#include "mpi/mpi_channel.hpp"
#include "mpi/mpi_context.hpp"
#include "mpi/mpi_engine.hpp"
#include "mpi/mpi_wire.hpp"
#include "runtime/async_mutex.hpp"

namespace commbench::mpi {

class MpiComm final : public Comm, private ChannelOwner {
 public:
  MpiComm(std::shared_ptr<Engine> engine, std::shared_ptr<Channel> ch, const WireOptions& wire,
          std::string local, std::string peer);
  ~MpiComm() override;

  Task<void> write(const Message& msg, CancelToken token = {}) override;
  Task<void> read(Message& into, CancelToken token = {}) override;
  Task<void> close() override;
  void abort() noexcept override;
  bool closed() const noexcept override { return closed_; }
  std::string local_address() const override { return local_; }
  std::string peer_address() const override { return peer_; }
  std::string peer_id() const override { return peer_id_; }
  void set_peer_id(std::string id) { peer_id_ = std::move(id); }

 private:
  struct Staging {
    std::unique_ptr<std::byte[]> data;
    size_t capacity = 0;
  };
  Staging acquire(size_t bytes);
  void release(Staging s) noexcept;
  // ChannelOwner: the peer closed (its notice, or a receive after it): fail reads that
  // can never be matched.
  void fail_unmatchable_reads() noexcept override;
  // write's parts: the coroutine for any message (started by write), and for a bare send
  // that did not finish within the call, the wait for the rest (mpi_comm.cpp).
  Task<void> write_message(const Message& msg, CancelToken token);
  Task<void> finish_bare_send(MPI_Request r, int test_rc, CancelToken token);
  static Task<void> send_failed(int rc);
  // Inline, with the errors out of line: every read checks twice and every write once,
  // and as calls building their messages they cost some 45 instructions a message.
  void check_writable() const {
    if (closed_ || ch_->peer_closed) [[unlikely]]
      not_writable();
  }
  void check_readable() const {
    if (closed_ || ch_->exhausted()) [[unlikely]]
      not_readable();
  }
  [[noreturn, gnu::cold]] void not_writable() const;
  [[noreturn, gnu::cold]] void not_readable() const;
  // bare: the message is one frame without header (lanes only, see mpi_wire.hpp).
  void post_send(Op& op, const void* p, size_t bytes, bool bare = false);
  void post_recv(Op& op, void* p, size_t bytes);
  // Posts, chunk by chunk into ops from `k` on, every frame its place sends on its own:
  // sends from the frames, or receives into them. Returns the next free op.
  size_t post_separate(OpBatch& ops, size_t k, std::span<const Buffer> frames,
                       std::span<const FramePlace> places, bool send);
  // The places of `frames` frames in `scratch`, grown (never shrunk) to fit: no allocation
  // per message once a comm has seen its largest frame count.
  static std::span<FramePlace> places_for(std::vector<FramePlace>& scratch, size_t frames);
  // A bare message of `got` bytes in in_: in_'s block becomes the message's frame.
  void read_bare(Message& into, size_t got);
  void finish_local(bool cancel_sends) noexcept;
  [[noreturn]] void protocol_error(const std::string& why);

  std::shared_ptr<Engine> engine_;
  std::shared_ptr<Channel> ch_;
  WireOptions wire_;
  std::string local_, peer_;
  std::string peer_id_;  // what the peer's ConnectRequest claimed
  bool closed_ = false;
  AsyncMutex read_lock_;
  OpList ops_;
  std::vector<Staging> pool_;
  Storage in_;  // first receive of every read (serialized by read_lock_); see read_bare
  const size_t in_capacity_;  // the largest header, plus the inline budget when packed
  std::vector<FrameInfo> frames_in_;
  // Frame places of the message being written (used only before the write's first
  // suspension, so concurrent writes never share them) and read (under read_lock_).
  std::vector<FramePlace> write_places_;
  std::vector<FramePlace> read_places_;
};

}  // namespace commbench::mpi
