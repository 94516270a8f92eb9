// The scheduler: keeps the task graph's state, sends each task to a worker once its
// dependencies are in memory (to the worker that already holds most of their bytes, as
// Dask's decide_worker does), tells the worker where each dependency lives, and reports
// finished graphs to the client. It moves no data itself.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "distributed/channel.hpp"
#include "distributed/sync.hpp"
#include "distributed/topology.hpp"

namespace commbench::app {

class Scheduler {
 public:
  // `goodbye_timeout`: how long wait_shutdown() waits for the workers to hang up.
  Scheduler(EventLoop& loop, const Topology& topo,
            std::chrono::nanoseconds goodbye_timeout = std::chrono::seconds(30));

  // Takes over an accepted connection whose Hello said worker or client; returns when
  // that connection ends.
  Task<void> serve(std::unique_ptr<Channel> ch, Hello hello);
  // Completes when the client has asked for shutdown, the workers were told and every
  // one of them has hung up (or `goodbye_timeout` passed): until then this rank keeps
  // reading their connections. A worker's goodbye (its comm's close) may need this end
  // to make progress before it can leave -- UCX's shared-memory FIFO of this process is
  // shared by every sender and frees slots only as we receive -- so a scheduler that
  // went on to the end-of-run MPI collectives at once left workers stuck in their close,
  // the rank-0 collective waiting on them: the 40- and 64-rank ucx merge hang.
  Task<void> wait_shutdown();

 private:
  enum class KeyState { waiting, processing, memory };
  struct KeyEntry {
    KeyState state = KeyState::waiting;
    TaskSpec spec;
    uint64_t graph = 0;
    int worker = -1;
    uint64_t nbytes = 0;
    int missing = 0;                      // dependencies not yet in memory
    std::vector<std::string> dependents;  // waiting tasks that need this key
  };
  struct GraphEntry {
    size_t remaining = 0;
    std::vector<std::string> keys;
    bool failed = false;
  };
  struct WorkerSlot {
    std::unique_ptr<Channel> ch;
    bool alive = false;
    int processing = 0;
  };

  Task<void> serve_worker(std::unique_ptr<Channel> ch, int index);
  Task<void> serve_client(std::unique_ptr<Channel> ch);
  Task<void> on_submit(Submit s);
  Task<void> on_task_done(int worker, TaskDone d);
  Task<void> on_task_failed(int worker, TaskFailed f);
  Task<void> on_release(Release r);
  Task<void> on_stats_request(StatsRequest r);
  Task<void> on_stats_reply(StatsReply r);
  Task<void> on_worker_lost(int worker, const std::string& why);
  Task<void> on_shutdown();
  void worker_hung_up();  // a serve_worker loop ended
  Task<void> assign(const std::string& key);
  Task<void> fail_graph(uint64_t graph, const std::string& error);
  template <typename T>
  Task<void> to_client(const T& m) {
    return to_client_encoded(encode(m));
  }
  Task<void> to_client_encoded(std::vector<std::byte> bytes);

  EventLoop& loop_;
  const Topology& topo_;
  std::vector<WorkerSlot> workers_;
  int registered_ = 0;
  Event all_registered_;
  Event shutdown_;
  std::chrono::nanoseconds goodbye_timeout_;
  int serving_workers_ = 0;  // serve_worker loops still reading their worker
  Event workers_gone_;       // set once shutdown_ is and serving_workers_ reached 0
  Channel* client_ = nullptr;
  std::unordered_map<std::string, KeyEntry> keys_;
  std::unordered_map<uint64_t, GraphEntry> graphs_;
  // A stats request in progress: replies collected until every live worker answered.
  uint64_t stats_id_ = 0;
  size_t stats_waiting_ = 0;
  StatsReply stats_;
  uint64_t stats_reset_ns_ = 0;
  uint64_t cpu_at_reset_ns_ = 0;
};

// Process CPU time (user + system), for the idle-cost figures.
uint64_t process_cpu_ns();

}  // namespace commbench::app
