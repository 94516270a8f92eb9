// What transpose_sum and merge share: options, the MPI bootstrap (which carries nothing
// but the listener addresses and the final metadata), the backend, one listener per
// rank, the roles of this rank (scheduler / client / worker), and the results -- a
// human table on stdout and one CSV row per repetition.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/bootstrap.hpp"
#include "harness/csv_writer.hpp"
#include "harness/interface.hpp"
#include "harness/machine_state.hpp"
#include "harness/metadata.hpp"
#include "harness/program_info.hpp"
#include "distributed/client.hpp"
#include "distributed/functions.hpp"
#include "distributed/topology.hpp"

namespace commbench::app {

struct AppOptions {
  std::string backend = "tcp";
  std::string progress;
  std::vector<std::string> backend_opts;
  std::string layout = "compact";
  std::string preset = "default";
  size_t runs = 5;
  // Untimed repetitions first: at the default transpose-sum size a fresh process's runs
  // 2-5 are up to 2x slower than the steady state (cause not found; not the memory pool,
  // which stops growing in the first run: results/quiet-2026-11-22/SUMMARY.md).
  size_t warmup = 5;
  std::string csv;
  std::string transfer_log;
  std::string interface;
  double connect_timeout_s = 30;
  double timeout_s = 600;
  size_t fetch_concurrency = 4;
  double slice_us = 1000;
  std::string test_kill;     // "WORKER:TASK"
  std::string inject_delay;  // microseconds, testing aid (harness/inject_delay.hpp)
  uint64_t inject_delay_ns = 0;
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
  // `add_options` adds the workload's options; `resolve` checks them (and applies the
  // preset) and throws std::invalid_argument with a one-line message. `sizes` maps the
  // workload's size names to the options that set them (--list-options).
  AppSession(int argc, char** argv, const std::string& program, const std::string& description,
             const SizeOptions& sizes,
             const std::function<void(CLI::App&, AppOptions&)>& add_options,
             const std::function<void(AppOptions&)>& resolve);
  ~AppSession();

  FunctionTable& functions() { return functions_; }
  const AppOptions& options() const { return opts_; }
  const Topology& topology() const { return topo_; }
  Bootstrap& boot() { return *boot_; }
  EventLoop& loop() { return loop_; }

  // The workload fills these before run(): CSV size_bytes, the table's throughput column
  // ("MB/s" from bytes / comm time, or "Mrows/s" from rows / wall), settings for the
  // JSON sidecar (typed values) and the header line.
  size_t size_value = 0;
  bool rows_throughput = false;
  std::string description_line;
  Json settings = Json::object();

  // Runs this rank's roles; `driver` is the client's program. Returns the exit code.
  int run(const std::function<Task<void>(Client&)>& driver);
  // Client side: prints one table line and writes one CSV row.
  void record(const RunRecord& r);
  // A one-line progress note on the client's stdout (prefixed by '#').
  void note(const std::string& line);
  // Fails every rank with one line when a worker would need more than this host's
  // physical memory (`bytes_per_worker`, the workload's own estimate, named by `what`):
  // such a run would otherwise swap or be killed long after it started.
  void require_worker_memory(uint64_t bytes_per_worker, const std::string& what);

 private:
  Task<void> handle(std::unique_ptr<Comm> comm);
  void print_header();
  void close_connections();

  AppOptions opts_;
  std::string program_;
  std::vector<std::string> argv_;
  std::unique_ptr<Bootstrap> boot_;
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
  std::string run_id_;
  LoadAverage load_at_start_;
  InterfaceChoice iface_;  // where the listener binds, and why
  unsigned long long total_wrong_ = 0;
  size_t records_ = 0;
};

}  // namespace commbench::app
