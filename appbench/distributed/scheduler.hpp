// The scheduler: keeps the task graph's state, sends each task to a worker once its
// dependencies are in memory (to the worker that already holds most of their bytes, as
// Dask's decide_worker does), tells the worker where each dependency lives, and reports
// finished graphs to the client. It moves no data itself.
#pragma once

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
  Scheduler(EventLoop& loop, const Topology& topo);

  // Takes over an accepted connection whose Hello said worker or client; returns when
  // that connection ends.
  Task<void> serve(std::unique_ptr<Channel> ch, Hello hello);
  // Completes when the client has asked for shutdown and the workers were told.
  Task<void> wait_shutdown() { co_await shutdown_.wait(); }

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
