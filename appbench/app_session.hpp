// What transpose_sum and merge share: options, the run layer (harness/run_layer.hpp: the
// parsing, the MPI bootstrap -- which carries nothing but the listener addresses and the
// final metadata -- the interface and the event loop's idle options), the backend, one listener per
// rank, the roles of this rank (scheduler / client / worker), and the results -- a
// human table on stdout and one CSV row per repetition.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "app_device.hpp"
#include "app_summary.hpp"
#include "distributed/client.hpp"
#include "distributed/functions.hpp"
#include "distributed/topology.hpp"
#include "harness/cli_fwd.hpp"
#include "harness/csv_writer.hpp"
#include "harness/run_layer.hpp"

namespace commbench::app {

// The run selection (one backend, interface, idle loop, deadlines) as both families have
// it, and how the app's roles run.
struct AppOptions : RunSelection {
  std::string layout = "compact";
  std::string preset = "default";
  size_t runs = 5;
  // Untimed repetitions first: at the default transpose-sum size a fresh process's runs
  // 2-5 are up to 2x slower than the steady state (cause not found; not the memory pool,
  // which stops growing in the first run: results/quiet-2026-11-22/SUMMARY.md).
  size_t warmup = 5;
  std::string csv;
  std::string transfer_log;
  size_t fetch_concurrency = 4;
  double slice_us = 1000;
  std::string test_kill;       // "WORKER:TASK"
  std::string inject_delay;    // microseconds, testing aid (harness/inject_delay.hpp)
  uint64_t corrupt_every = 0;  // testing aid: workers flip a byte of every Nth fetched value
  uint64_t inject_delay_ns = 0;
  // Where the workers keep their data blocks (app_device.hpp) and how device frames cross
  // the comm (gpu/gpu_path.hpp: auto | staged | pass-through).
  std::string memory = "host";
  std::string gpu_path = "auto";
  std::string gpu_chunk = "1M";
  size_t gpu_chunk_bytes = 0;
  std::string gpu_sync_copy = "0";
  size_t gpu_sync_copy_bytes = 0;

  const BackendSpec& backend() const { return specs.front(); }
};

// One numeric option of a workload, declared as data: the session registers it with CLI11,
// so a workload's own file need not include CLI11 (~6 CPU-s for every translation unit
// that does, harness/cli_fwd.hpp). Every value given is checked against [min, max]
// (harness/numeric_range.hpp); show_default: --help shows the value it starts with.
struct WorkloadOption {
  const char* flags;  // "-n,--size"
  std::variant<uint64_t*, double*> value;
  std::string help;
  double min;
  double max;
  bool show_default = false;
};

// What a workload tells the session about itself.
struct Workload {
  std::string program;
  std::string description;  // --help's first lines
  SizeOptions sizes;        // its size names -> the options that set them (--list-options)
  std::string preset_help;  // what --preset default and paper mean for this workload
};

// One timed repetition as the workload measured it.
struct RunRecord {
  size_t run = 0;
  double wall_s = 0;
  std::vector<WorkerStats> stats;  // from Client::stats() right after the timed part
  unsigned long long wrong = 0;    // 0 = validated
  double rows = 0;                 // merge: rows produced (rows_per_s = rows / wall_s)
  uint64_t client_cpu_ns = 0;      // CPU time of the client's process in the timed part
};

class AppSession {
 public:
  // `options` are the workload's own; `resolve` checks them (and applies --preset, default
  // or paper) and throws std::invalid_argument with a one-line message.
  AppSession(int argc, char** argv, const Workload& workload,
             const std::vector<WorkloadOption>& options,
             const std::function<void(const AppOptions&)>& resolve);
  ~AppSession();

  FunctionTable& functions() { return functions_; }
  const AppOptions& options() const { return opts_; }
  const Topology& topology() const { return topo_; }
  Bootstrap& boot() { return layer_.boot(); }
  EventLoop& loop() { return loop_; }
  // The memory the workers keep their blocks in, the device and the kernels to use; its
  // path is known once run() has created the backend (tasks run after that).
  const AppDevice& device() const { return device_; }

  // The workload fills these before run(): CSV size_bytes, the table's throughput column
  // ("MB/s" from bytes / comm time, or "Mrows/s" from rows / wall), settings for the
  // JSON sidecar (typed values) and the header line.
  size_t size_value = 0;
  bool rows_throughput = false;
  std::string description_line;
  Json settings = Json::object();

  // Runs this rank's roles; `driver` is the client's program. Returns the exit code.
  int run(const std::function<Task<void>(Client&)>& driver);
  // Client side: --warmup untimed repetitions, then --runs timed and recorded ones. Each
  // times the graph `graph(r)` makes, then `check(r, rec)` checks its result untimed
  // (fills rec.wrong, and rec.rows for a rows throughput) and returns the keys it made;
  // they and the timed graph's keys are released before the next repetition.
  using GraphFn = std::function<std::vector<TaskSpec>(size_t r)>;
  using CheckFn = std::function<Task<std::vector<KeyInfo>>(size_t r, RunRecord& rec)>;
  Task<void> repeat(Client& client, GraphFn graph, CheckFn check);
  // A one-line progress note on the client's stdout (prefixed by '#').
  void note(const std::string& line);
  // Fails every rank with one line when a worker would need more than this host's
  // physical memory (`bytes_per_worker`, the workload's own estimate, named by `what`):
  // such a run would otherwise swap or be killed long after it started. It also sets the
  // largest frame and message a peer may send (all the workers' data, at least 64 MiB),
  // so call it before run().
  void require_worker_memory(uint64_t bytes_per_worker, const std::string& what);

 private:
  Task<void> handle(std::unique_ptr<Comm> comm);
  void create_backend();   // in run(), with the limits the workload set
  void open_device();      // --memory cuda: every rank's device, or one line for the job
  void choose_gpu_path();  // after create_backend: staged channels or pass-through
  void print_header();
  void close_connections();
  // Prints one table line and writes one CSV row.
  void record(const RunRecord& r);

  AppOptions opts_;
  RunLayer layer_;  // owns the bootstrap: declared first, so it outlives the roles
  EventLoop loop_;
  ChannelSet channels_{loop_};  // declared before the roles: outlives their channels
  Topology topo_;
  FunctionTable functions_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<class Scheduler> scheduler_;
  std::unique_ptr<class Worker> worker_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<CsvWriter> csv_;
  std::FILE* transfer_log_ = nullptr;
  unsigned long long total_wrong_ = 0;
  size_t records_ = 0;
  RunSummary summary_;  // the client's timed runs
  AppDevice device_;
};

// A task function for a workload kernel that takes the session's device first (its
// memory kind and which kernels run): fn(device, ctx, deps, args).
template <typename Fn>
TaskFunction with_device(const AppSession& s, Fn fn) {
  return [&s, fn](TaskContext& ctx, const std::vector<const Value*>& deps,
                  std::span<const std::byte> args) { return fn(s.device(), ctx, deps, args); };
}

}  // namespace commbench::app
