// A worker: runs the tasks the scheduler sends, one at a time on the loop thread (tasks
// yield between slices of work), keeps their results, serves them to peers, and pulls
// the dependencies it lacks from the workers that hold them -- several fetches in
// flight, each on a pooled connection, each timed. A task whose inputs are all here runs
// while the fetches of the others are still moving, so transfers overlap compute.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "distributed/channel.hpp"
#include "distributed/functions.hpp"
#include "distributed/sync.hpp"
#include "distributed/topology.hpp"
#include "distributed/wait_clock.hpp"

namespace commbench::app {

struct WorkerOptions {
  size_t fetch_concurrency = 4;   // fetches in flight per worker (Dask: 50 outgoing)
  uint64_t slice_ns = 1'000'000;  // a task yields to the loop after this much work
  std::chrono::nanoseconds connect_timeout{std::chrono::seconds(30)};
  // Testing aid: this worker process dies (exits at once, like a crash) when it receives
  // its `die_at_task`-th Compute message; 0 = never.
  uint64_t die_at_task = 0;
  // Testing aid (--inject-delay): busy-wait this long before every data write to a peer
  // worker, inside the fetch the peer times as communication.
  uint64_t inject_delay_ns = 0;
  // Testing aid (--test-corrupt-fetch): flip one byte of every Nth value fetched from a
  // peer, so the apps' validation is seen failing end to end; 0 = never.
  uint64_t corrupt_every = 0;
};

class Worker {
 public:
  // Its connections are registered in `channels`, which must outlive it.
  Worker(ChannelSet& channels, const Topology& topo, Backend& backend, const FunctionTable& fns,
         WorkerOptions opts);
  ~Worker();

  // Registers with the scheduler and works until it says Shutdown. Throws when the
  // scheduler is lost.
  Task<void> run();
  // Takes over an accepted connection from a peer or the client: answers GetData.
  Task<void> serve_data(std::unique_ptr<Channel> ch, Hello hello);

 private:
  struct Pending {
    Compute task;
    int missing = 0;
    bool held = false;  // counted in wait_clock_ as held back by missing inputs
  };
  struct Fetched {
    Value value;
    int users = 0;  // pending or ready tasks that still need it
  };

  Task<void> message_loop();
  void on_compute(Compute c);
  void on_release(const Release& r);
  StatsReply take_stats(uint64_t id);
  Task<void> fetch(std::string key, int holder);
  Task<void> executor();
  Task<void> run_task(std::shared_ptr<Pending> p);
  void release_hold(Pending& p);
  template <typename T>
  Task<void> report(const T& m) {
    return report_encoded(encode(m));
  }
  Task<void> report_encoded(std::vector<std::byte> bytes);
  const Value* find(const std::string& key) const;
  std::string fetch_error(const std::string& key, int holder, const std::string& error) const;

  ChannelSet& channels_;  // and through it the loop
  const Topology& topo_;
  int index_;
  Backend& backend_;
  const FunctionTable& fns_;
  WorkerOptions opts_;
  std::unique_ptr<Connector> connector_;
  std::unique_ptr<ConnectionPool> pool_;
  std::unique_ptr<Channel> scheduler_;
  Semaphore fetch_slots_;

  std::unordered_map<std::string, Value> data_;       // results of tasks run here
  std::unordered_map<std::string, Fetched> fetched_;  // copies of peers' results
  std::unordered_map<std::string, std::vector<std::shared_ptr<Pending>>> fetching_;
  std::deque<std::shared_ptr<Pending>> ready_;
  Event work_;  // set when ready_ gets a task or on shutdown
  bool stopping_ = false;
  uint64_t computes_received_ = 0;
  uint64_t fetches_done_ = 0;

  // Counters since the last stats request.
  std::vector<TransferRecord> transfers_;
  WaitClock wait_clock_;
  uint64_t tasks_ = 0, task_ns_ = 0, stats_reset_ns_ = 0, cpu_at_reset_ns_ = 0;
};

}  // namespace commbench::app
