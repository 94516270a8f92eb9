// The control protocol of the mini Dask runtime: every message the scheduler, client and
// workers exchange, and its encoding. One file so the whole wire format is in one place.
//
// A control message is frame 0 of a comm Message: one op byte, then fields in order,
// integers little-endian fixed width, strings and byte blobs as u32 length + bytes.
// Bulk data (task results) never goes through this encoding: a Data message carries
// only keys and part counts in frame 0 and the parts themselves as frames 1..n, so a
// 32 MiB block goes to the backend as the pointer it lives at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace commbench::app {

enum class Role : uint8_t { worker = 1, client = 2, peer = 3 };

// One node of a task graph as the client submits it.
struct TaskSpec {
  std::string key;
  std::string func;
  std::vector<std::string> deps;
  std::vector<std::byte> args;  // small, function-specific (dimensions, seeds)
  int32_t worker = -1;          // placement restriction (worker index), -1 = scheduler picks
};

// Where a finished key lives.
struct KeyInfo {
  std::string key;
  int32_t worker = -1;  // worker index (0-based), not MPI rank
  uint64_t nbytes = 0;
};

// One worker <-> worker (or client <- worker) transfer, as the receiver timed it.
struct TransferRecord {
  int32_t from_worker = -1;  // sender's worker index
  int32_t to_worker = -1;    // receiver's worker index (-1 = the client)
  std::string key;
  uint64_t bytes = 0;
  uint64_t start_ns = 0;  // receiver's monotonic clock, relative to the stats reset
  uint64_t duration_ns = 0;
};

struct WorkerStats {
  int32_t worker = -1;
  uint64_t tasks = 0;
  uint64_t task_ns = 0;  // time spent inside task functions
  uint64_t cpu_ns = 0;   // process CPU time (user + system) since the reset
  uint64_t wait_ns = 0;  // idle while a task waited only for its inputs (WaitClock)
  std::vector<TransferRecord> transfers;
};

// --- the messages ------------------------------------------------------------------
struct Hello {  // first message on every connection: who is speaking
  Role role;
  int32_t index;  // worker index for workers and peers, -1 for the client
};
struct Submit {  // client -> scheduler: run these tasks, tell me when all are in memory
  uint64_t graph;
  std::vector<TaskSpec> tasks;
};
struct GraphDone {  // scheduler -> client
  uint64_t graph;
  std::vector<KeyInfo> results;
};
struct GraphFailed {  // scheduler -> client
  uint64_t graph;
  std::string error;
};
struct DepLocation {
  std::string key;
  int32_t worker;  // the worker that holds it
};
struct Compute {  // scheduler -> worker
  std::string key;
  std::string func;
  std::vector<std::byte> args;
  std::vector<DepLocation> deps;
};
struct TaskDone {  // worker -> scheduler
  std::string key;
  uint64_t nbytes;
};
struct TaskFailed {  // worker -> scheduler
  std::string key;
  std::string error;
  // The worker whose connection broke while a dependency was fetched from it, else -1:
  // the failure is then that worker's loss, not this task's.
  int32_t lost_worker = -1;
};
struct Release {  // client -> scheduler -> workers: forget these keys
  std::vector<std::string> keys;
};
struct GetData {  // peer/client -> worker
  std::vector<std::string> keys;
};
struct Data {  // worker -> peer/client; parts[i] frames follow for keys[i], in order
  std::vector<std::string> keys;
  std::vector<uint32_t> parts;
};
struct DataMissing {  // worker -> peer/client: a key it was asked for is not here
  std::string error;
};
struct StatsRequest {  // client -> scheduler -> workers: report and reset counters
  uint64_t id;
};
struct StatsReply {  // workers -> scheduler (one entry) and scheduler -> client (all)
  uint64_t id;
  std::vector<WorkerStats> workers;
};
struct Shutdown {};

using ControlMessage =
    std::variant<Hello, Submit, GraphDone, GraphFailed, Compute, TaskDone, TaskFailed, Release,
                 GetData, Data, DataMissing, StatsRequest, StatsReply, Shutdown>;

// Encodes one message (frame 0).
std::vector<std::byte> encode(const ControlMessage& msg);
// Decodes frame 0; throws commbench::ProtocolError on a truncated or unknown message.
ControlMessage decode(std::span<const std::byte> bytes);
// The message's name, for error lines ("expected Hello, got Compute").
const char* name_of(const ControlMessage& msg);

// Little helpers for function arguments (TaskSpec::args): a flat list of u64.
std::vector<std::byte> pack_u64(std::initializer_list<uint64_t> values);
std::vector<uint64_t> unpack_u64(std::span<const std::byte> bytes);

}  // namespace commbench::app
