// Command-line options shared by pingpong and bandwidth (CLI11), with OSU-like defaults.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/cli_fwd.hpp"
#include "harness/program_info.hpp"
#include "harness/run_selection.hpp"

namespace commbench {

enum class BenchKind { pingpong, bandwidth };

// The run selection (backends, interface, idle loop, deadlines) as both families have it,
// and what a microbenchmark measures.
struct BenchOptions : RunSelection {
  BenchKind kind = BenchKind::pingpong;
  std::string min_size = "1";
  std::string max_size;  // default depends on kind
  size_t factor = 2;
  std::string size_range;  // -m MIN:MAX (OSU), sets min_size and max_size
  size_t iters = 0, iters_large = 0, warmup = 0, warmup_large = 0;
  std::string large_size;
  size_t reps = 0;
  size_t window = 64;
  bool bidirectional = false;
  // Raw baselines' receive buffers in a bandwidth window: per-message (each message in
  // flight has its own buffer, as every coroutine read owns its message) | shared (OSU:
  // the whole window lands in one buffer that stays in cache).
  std::string recv_buffers = "per-message";
  bool validate = false;
  std::string csv;
  std::string json;     // --json: the CSV's rows, typed, with the metadata
  std::string samples;  // --samples (pingpong): every timed iteration
  // pingpong: per-trip (each round trip timed alone) | per-repetition (one clock pair per
  // repetition, as OSU and NetPIPE time: no clock reads inside the loop)
  std::string timing = "per-trip";
  double read_timeout_s = 5;  // nothing received or sent for this long fails the run; 0 = never
  std::string memory = "host";
  std::string send_memory, recv_memory;
  std::string gpu_path = "auto";             // auto | pass-through | staged (device memory only)
  std::string gpu_chunk = "1M";              // staging pipeline chunk
  std::string gpu_sync_copy = "0";           // staged: blocking copies for messages up to this
  std::string gpu_read_completion = "host";  // staged: host | stream (StagedOptions)
  std::string max_frame;
  std::string delay;  // injected per-message delay in the coroutine driver (regression tests)
  bool test_stray = false;
  size_t corrupt_every = 0;  // tests only: flip a byte of every Nth filled message (pattern.hpp) //
                             // tests only: ranks >= 2 knock on rank 1 (harness/stray_peer.hpp)

  // Resolved from the strings above by resolve().
  std::vector<size_t> sizes;
  size_t large_bytes = 0;
  size_t delay_ns = 0;
  size_t gpu_chunk_bytes = 0;
  size_t gpu_sync_copy_bytes = 0;
  bool gpu_stream_reads = false;
  bool shared_recv_buffer = false;
  bool time_per_trip = true;
};

void add_bench_options(CLI::App& app, BenchOptions& o, BenchKind kind);
// For --list-options: which options set the sizes (min, max, factor).
ProgramShape bench_program_shape(const std::string& program);
// Checks and resolves; throws std::invalid_argument with a one-line message.
void resolve_bench_options(BenchOptions& o);

}  // namespace commbench
