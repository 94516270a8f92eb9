// Coroutine code in appbench builds every message in a named variable before
// `co_await ...send(msg)`: GCC 12 destroys some aggregate temporaries of a co_await
// full-expression twice (seen here as a double free), so none are created there.
//
// A comm carrying the runtime's protocol: control message in frame 0, bulk parts as the
// frames after it. Writes from several coroutines (a worker's executor reporting a task
// while its message loop answers a stats request) take turns whole-message at a time.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "comm/comm.hpp"
#include "runtime/async_mutex.hpp"
#include "distributed/channel_set.hpp"
#include "distributed/protocol.hpp"

namespace commbench::app {

class Channel {
 public:
  // Registered in `set` for its lifetime (see ChannelSet); `comm` is wrapped in the set's
  // wrapper, if it has one (the app's device path).
  Channel(ChannelSet& set, std::unique_ptr<Comm> comm);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Sends `msg` followed by `bulk` as separate frames (their memory is not copied).
  // Encodes at once, so the caller's message need not outlive the call.
  template <typename T>
  Task<void> send(const T& msg, std::span<const Buffer> bulk = {}) {
    return send_encoded(encode(msg), std::vector<Buffer>(bulk.begin(), bulk.end()));
  }
  Task<void> send_encoded(std::vector<std::byte> head, std::vector<Buffer> bulk);
  // Reads the next message into `into` and decodes frame 0; bulk frames stay in `into`.
  Task<ControlMessage> recv(Message& into, CancelToken token = {});

  Comm& comm() { return *comm_; }
  std::string peer() const { return comm_->peer_address(); }
  bool closed() const { return comm_->closed(); }
  void abort() noexcept { comm_->abort(); }

 private:
  ChannelSet& set_;
  std::unique_ptr<Comm> comm_;
  AsyncMutex write_lock_;
};

// Reused connections to peers, one idle list per address (Dask's ConnectionPool): a
// request takes a connection out, so several fetches from one peer run on several
// connections at once, and puts it back when its reply has been read.
class ConnectionPool {
 public:
  ConnectionPool(ChannelSet& channels, Connector& connector, Hello me,
                 std::chrono::nanoseconds connect_timeout)
      : channels_(channels), connector_(connector), me_(me), timeout_(connect_timeout) {}

  Task<std::unique_ptr<Channel>> acquire(const std::string& address);
  void release(const std::string& address, std::unique_ptr<Channel> ch);
  size_t connections_opened() const noexcept { return opened_; }

 private:
  ChannelSet& channels_;
  Connector& connector_;
  Hello me_;
  std::chrono::nanoseconds timeout_;
  std::map<std::string, std::vector<std::unique_ptr<Channel>>> idle_;
  size_t opened_ = 0;
};

// Whether `e`, raised while talking to a peer, means the peer is gone: its connection
// broke or it cannot be reached (as opposed to a peer that answered nonsense).
bool peer_is_gone(const std::exception& e) noexcept;

// Throws ProtocolError("<context>: expected X, got Y") unless `m` holds a T.
template <typename T>
T expect(ControlMessage&& m, const std::string& context);

}  // namespace commbench::app

#include "distributed/channel_inl.hpp"
