// The client: submits graphs to the scheduler and waits for them, gathers results from
// the workers that hold them (over its own pooled connections), releases keys, and asks
// for the workers' transfer logs. Any failure the scheduler reports -- a task error, a
// lost worker -- surfaces as ClientError with the scheduler's one-line reason.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "distributed/channel.hpp"
#include "distributed/topology.hpp"
#include "distributed/value.hpp"

namespace commbench::app {

class ClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Client {
 public:
  // Its connections are registered in `channels`, which must outlive it.
  Client(ChannelSet& channels, const Topology& topo, Backend& backend,
         std::chrono::nanoseconds connect_timeout);

  // Connects to the scheduler and waits until every worker has registered.
  Task<void> connect();
  // Submits tasks and waits until all are in memory; returns where each one lives.
  Task<std::vector<KeyInfo>> compute(std::vector<TaskSpec> tasks);
  // Fetches these keys' values from their workers, concurrently.
  Task<std::vector<Value>> gather(const std::vector<KeyInfo>& keys);
  Task<void> release(std::vector<std::string> keys);
  // Every worker's counters and transfers since the previous call (entry with worker -1
  // is the scheduler's rank), and resets them.
  Task<std::vector<WorkerStats>> stats();
  Task<void> shutdown();

  int workers() const { return topo_.workers(); }

 private:
  // Reads until the reply for `graph`/stats arrives; a GraphFailed ends every wait.
  Task<ControlMessage> await_reply();
  Task<Value> gather_one(KeyInfo key);

  ChannelSet& channels_;  // and through it the loop
  const Topology& topo_;
  std::chrono::nanoseconds timeout_;
  std::unique_ptr<Connector> connector_;
  std::unique_ptr<ConnectionPool> pool_;
  std::unique_ptr<Channel> scheduler_;
  uint64_t next_id_ = 1;
  Message in_;
};

}  // namespace commbench::app
