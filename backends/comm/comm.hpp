// The comm interface every backend implements (modelled on Dask's distributed.comm):
// Comm (one connection), Listener (accepts), Connector (connects), and Backend, which
// makes both for one URI scheme.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "comm/limits.hpp"
#include "comm/message.hpp"
#include "comm/peer_auth.hpp"
#include "runtime/cancel.hpp"
#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"

namespace commbench {

// One bidirectional connection carrying whole messages in order.
class Comm {
 public:
  virtual ~Comm() = default;

  // Sends every frame of `msg`. A write starts within its call: it posts its sends there,
  // so writes go out in the order they are called, and the Task waits for the rest. A
  // write the library finished within the call returns a finished Task (empty: no
  // coroutine frame, which costs more than a small message's send). Errors are reported
  // when the Task is awaited, never by the call. The frames' memory must stay valid
  // until the Task is done, and the Task must be awaited (or the comm aborted and the
  // loop run) before it is dropped: a started write may be waiting on the comm.
  virtual Task<void> write(const Message& msg, CancelToken token = {}) = 0;
  // Receives the next message into `into` (its frames are replaced; storage reused).
  // Throws CommClosedError when the peer closes or dies, also while the read is waiting.
  virtual Task<void> read(Message& into, CancelToken token = {}) = 0;
  // Graceful close: the peer's pending and future reads fail with CommClosedError.
  virtual Task<void> close() = 0;
  // Immediate close that waits for nothing (at most a best-effort notice goes to the
  // peer, like a TCP reset); safe to call at any time, twice too. A read pending on this
  // comm fails with CommClosedError on the loop's next turns (CommSuite tests it): an
  // owner aborts, lets the loop run, and only then destroys the comm.
  virtual void abort() noexcept = 0;
  virtual bool closed() const noexcept = 0;

  virtual std::string local_address() const = 0;
  virtual std::string peer_address() const = 0;
  // The identity the peer's hello claimed (its PeerAuth::self_id, "rank 0"), vouched for
  // by the job token the hello carried; empty when the peer sent none. Whoever expects a
  // particular peer compares it (microbench rank 1, appbench's roles).
  virtual std::string peer_id() const { return {}; }
  // The library transports this connection's data travels on, as the library names them
  // (UCX: "sysv/memory", "tcp/eth0"); empty when the backend has nothing to add to its
  // scheme. For run metadata: it may cost a formatted report, never call it per message.
  virtual std::vector<std::string> transports() const { return {}; }

  // Convenience: read into a fresh Message.
  Task<Message> read_message(CancelToken token = {}) {
    Message m;
    co_await read(m, token);
    co_return m;
  }
};

// Called once per accepted, handshaken connection, each in its own task. The listener
// keeps the handler alive until every task it started has finished, even after stop().
using CommHandler = std::function<Task<void>(std::unique_ptr<Comm>)>;

class Listener {
 public:
  virtual ~Listener() = default;
  // Binds and starts accepting in the background; the contact address is valid after.
  virtual Task<void> start(CommHandler handler) = 0;
  // Stops accepting; established comms stay open.
  virtual void stop() noexcept = 0;
  // The address peers connect to (the real port when the listener was given port 0).
  virtual std::string contact_address() const = 0;
};

class Connector {
 public:
  virtual ~Connector() = default;
  // Connects and handshakes, retrying refused attempts with back-off until `timeout`;
  // then throws ConnectError naming the address and the last reason.
  virtual Task<std::unique_ptr<Comm>> connect(const std::string& address,
                                              std::chrono::nanoseconds timeout) = 0;
};

// What a benchmark or test may choose per backend.
struct BackendOptions {
  std::string progress;  // a progress policy name; empty = the backend's default
  CommLimits limits;
  // The job token every hello carries and checks, this end's identity, and the count of
  // peers refused (comm/peer_auth.hpp). Copies share the count.
  PeerAuth auth;
  // Backend-specific settings (e.g. "wire" = packed|per-frame, "chunk" = bytes for mpi).
  std::map<std::string, std::string> extra;
};

// What a backend holds in the libraries beneath it, counted where it is made (not
// estimated), for the scaling probe (microbench/scale_probe.cpp). -1: the backend has no
// such thing. Process-wide where the library state is (UCX's endpoints, MPI's context).
struct BackendResources {
  long long ucx_endpoints = -1;  // ucp endpoints created and not yet closed
  long long mpi_comms = -1;      // communicators the MPI context created (control, pairs, lanes)
  long long mpi_tags_live = -1;  // incoming tags held by open connection ends
  long long mpi_tags_allocated = -1;  // distinct tags ever handed out (high-water mark)
  long long mpi_tag_limit = -1;       // connection ends one process may hold at once
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string scheme() const = 0;
  // The progress policy in force (recorded in every CSV row).
  virtual std::string progress() const = 0;
  virtual std::unique_ptr<Listener> make_listener(const std::string& address) = 0;
  virtual std::unique_ptr<Connector> make_connector() = 0;
  // A listen address for this host that peers on other hosts can reach: e.g.
  // tcp://<host>:0. `host` is an interface address chosen by the caller.
  virtual std::string default_listen_address(const std::string& host) const = 0;
  // True when the library behind this backend takes CUDA device pointers itself, as
  // its run-time query reports (a CUDA-aware MPI, UCX with the cuda memory type): the
  // GPU layer then passes device frames through instead of staging them.
  virtual bool accepts_device_memory() const { return false; }
  virtual BackendResources resources() const { return {}; }
};

}  // namespace commbench
