// Everything pingpong and bandwidth share around their timed loops: options, the run
// layer (harness/run_layer.hpp: parsing, MPI bootstrap, interface, metadata), the event loop, one
// driver per --backend entry (connected once), the interleaved size sweep, the human table and the
// CSV + metadata.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "drivers/driver.hpp"
#include "harness/bench_options.hpp"
#include "harness/bootstrap.hpp"
#include "harness/csv_writer.hpp"
#include "harness/json_rows.hpp"
#include "harness/run_layer.hpp"
#include "harness/sample_log.hpp"
#include "harness/stall_watchdog.hpp"
#include "runtime/event_loop.hpp"

namespace commbench {

// One measured point of one driver, filled by the benchmark.
struct Point {
  size_t iterations = 0;  // timed iterations in total
  size_t wrong = 0;
  // pingpong: one-way latency samples (ns); bandwidth: one MB/s figure per repetition.
  std::vector<double> samples;
};

class BenchSession {
 public:
  // Parses the command line (exits with one line on bad input), initializes MPI and
  // connects every driver.
  BenchSession(int argc, char** argv, const std::string& program, BenchKind kind,
               const std::string& description);
  ~BenchSession();

  const BenchOptions& options() const { return opts_; }
  Bootstrap& boot() { return layer_.boot(); }
  EventLoop& loop() { return loop_; }
  std::vector<std::unique_ptr<Driver>>& drivers() { return drivers_; }

  size_t iters_for(size_t size) const;
  // What one repetition times: iters_for(size) split across --reps (never 0: the options
  // refuse fewer iterations than repetitions).
  size_t iters_per_rep(size_t size) const;
  size_t warmup_for(size_t size) const;

  // For each size: warm up every driver, then `reps` rounds in which every driver runs
  // one repetition, so the drivers alternate. `rep(driver, index, size, rep_no, point)`
  // runs one timed repetition and appends to point.
  using RepFn =
      std::function<void(Driver&, size_t driver_index, size_t size, size_t rep, Point& point)>;
  using WarmFn = std::function<void(Driver&, size_t size)>;
  // `emit(driver, size, point)` prints and records a finished point (rank 0 only).
  using EmitFn = std::function<void(Driver&, size_t size, Point& point, ResultRow& row)>;
  void sweep(const WarmFn& warm, const RepFn& rep, const EmitFn& emit,
             const std::vector<std::string>& table_columns,
             const std::vector<std::string>& table_units);

  // --samples: one repetition's timed iterations (rank 0; nothing without the option).
  // `round_trip_ns`: the repetition's round trips as timed; the log holds half of each.
  void record_samples(const Driver& d, size_t size, size_t rep, const uint64_t* round_trip_ns,
                      size_t n);

  // Prints one line of the human table (rank 0).
  void print_row(const std::vector<std::string>& cells);
  // Finishes: commits the CSV with metadata; returns the process exit code.
  int finish();

 private:
  BenchOptions opts_;
  RunLayer layer_;  // owns the bootstrap: declared first, so it outlives the drivers
  EventLoop loop_;
  LoopOptions base_loop_;  // the run's own idle options; each entry's @rule is applied over them
  // Per entry, what the loop did while that entry's timed repetitions ran (blocks, naps,
  // time asleep): the sidecar's evidence that each entry's idle rule was the one applied.
  std::vector<LoopStats> idle_stats_;
  std::vector<std::unique_ptr<Driver>> drivers_;
  std::unique_ptr<DriverEnv> env_;
  std::unique_ptr<CsvWriter> csv_;        // rank 0 with --csv only
  std::unique_ptr<JsonRowsWriter> json_;  // rank 0 with --json only
  std::unique_ptr<SampleLog> samples_;    // rank 0 with --samples only
  // Ranks 0 and 1: ends the run with one line naming the peer when nothing moves for
  // --read-timeout (+ grace), wherever the run blocks (raw baselines, MPI collectives).
  StallWatchdog stall_;
  std::string peer_;  // "rank 1 (host, address)": the other rank of the pair, for errors
  [[noreturn]] void fail_with_peer(const std::string& what);
  void watch(double silence_s);
  size_t total_wrong_ = 0;
  std::vector<size_t> widths_;
};

}  // namespace commbench
