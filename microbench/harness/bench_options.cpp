#include "harness/bench_options.hpp"

#include <stdexcept>

#include "comm/backend_catalog.hpp"
#include "comm/buffer.hpp"
#include "harness/backend_listing.hpp"
#include "harness/csv_writer.hpp"
#include "harness/host_memory.hpp"
#include "harness/inject_delay.hpp"
#include "harness/numeric_range.hpp"
#include "harness/option_listing.hpp"
#include "harness/sizes.hpp"

namespace commbench {

void add_bench_options(CLI::App& app, BenchOptions& o, BenchKind kind) {
  o.kind = kind;
  bool pp = kind == BenchKind::pingpong;
  // OSU's defaults: latency 10000/1000 iterations (small/large), bandwidth 100/20
  // windows of 64; large from 8 KiB (latency) or 1 MiB (bandwidth).
  o.max_size = pp ? "4M" : "64M";
  o.iters = pp ? 10000 : 100;
  o.iters_large = pp ? 1000 : 20;
  o.warmup = pp ? 200 : 10;
  o.warmup_large = pp ? 20 : 2;
  o.large_size = pp ? "8K" : "1M";
  o.reps = pp ? 10 : 5;
  o.csv = "";

  add_selection_options(app, o, Family::microbench);
  app.add_option("-b,--min-size", o.min_size, "Smallest message size (e.g. 1, 8K)")
      ->capture_default_str();
  app.add_option("-e,--max-size", o.max_size, "Largest message size (e.g. 4M, 1G)")
      ->capture_default_str();
  app.add_option("-m,--message-size", o.size_range,
                 "OSU's size range MIN:MAX (e.g. 1:4096, 8K:4M), or MAX alone; instead of -b/-e");
  with_range(app.add_option("-f,--factor", o.factor, "Multiply the size by this factor each step")
                 ->capture_default_str(),
             2);
  // The iteration counts: below --large-size, then at and above it.
  const OptionRow<size_t> counts[] = {
      {"-i,--iters", &o.iters,
       pp ? "Timed round trips per size (split across --reps; OSU's -i)"
          : "Timed windows per size (split across --reps; OSU's -i)",
       1},
      {"--iters-large", &o.iters_large, "Timed iterations at and above --large-size", 1},
      {"-x,--warmup", &o.warmup, "Untimed iterations per backend and size (OSU's -x)"},
      {"--warmup-large", &o.warmup_large, "Untimed iterations at large sizes"},
  };
  add_option_rows(app, counts, ShowDefault::yes);
  app.add_option("--large-size", o.large_size, "Size from which the *-large counts apply")
      ->capture_default_str();
  with_range(app.add_option("--reps", o.reps,
                            "Repetitions per size; backends alternate between repetitions so "
                            "their ratio is taken under the same machine state")
                 ->capture_default_str(),
             1);
  if (!pp) {
    with_range(app.add_option("--window", o.window, "Messages in flight per window (OSU: 64)")
                   ->capture_default_str(),
               1);
    app.add_flag("--bidirectional", o.bidirectional,
                 "Both ranks send windows at once (osu_bibw's method)");
    app.add_option("--recv-buffers", o.recv_buffers,
                   "Receive buffers of the raw baselines: per-message (each message of a "
                   "window in its own buffer, the footprint every coroutine backend has, so "
                   "the ratio shows the layer's cost) | shared (OSU: one buffer for the whole "
                   "window, which stays in cache)")
        ->capture_default_str();
  }
  app.add_flag("--validate", o.validate,
               "Fill every message with a pattern and check every received byte; the "
               "'wrong' column counts mismatches (timings then include the checks)");
  app.add_option("--csv", o.csv, "Write tidy CSV rows here (and a .json metadata sidecar)");
  app.add_option("--json", o.json,
                 "Write the same rows as --csv here as typed JSON, with the run's metadata "
                 "({\"rows\": [...], \"metadata\": {...}})");
  if (pp)
    app.add_option("--timing", o.timing,
                   "per-trip: each round trip timed alone (two clock reads per round trip, "
                   "about 25 ns one way on a VM), so the percentiles describe round trips | "
                   "per-repetition: one clock pair around each repetition's loop, as OSU and "
                   "NetPIPE time; every latency column then describes the repetitions' mean "
                   "one-way latencies, and --samples is refused")
        ->capture_default_str();
  if (pp)
    app.add_option("--samples", o.samples,
                   "Write every timed round trip here, one CSV row each (backend, progress, "
                   "size_bytes, rep, iteration, ns = one-way latency: half the round trip), "
                   "for a histogram or CDF: scripts/plot --samples FILE");
  with_range(
      app.add_option("--read-timeout", o.read_timeout_s,
                     "Fail with one line naming the peer when nothing is received or sent for "
                     "this many seconds (a stalled or dead peer, a link down), on every backend "
                     "and raw baseline, instead of waiting forever; a bandwidth window may take "
                     "its bytes at 50 MB/s on top (0 = never)")
          ->capture_default_str(),
      0);
  app.add_option("--memory", o.memory,
                 "Memory kind of both buffers: host | cuda (cudaMalloc device memory; needs a "
                 "CUDA build and a GPU; the CSV column gpu_path says how it crossed)")
      ->capture_default_str();
  app.add_option("--send-memory", o.send_memory, "Memory kind of the sending buffer");
  app.add_option("--recv-memory", o.recv_memory, "Memory kind of the receiving buffer");
  app.add_option(
         "--gpu-path", o.gpu_path,
         "How device memory crosses a coroutine backend: auto (pass-through when "
         "the library reports CUDA support at run time, else staged) | pass-through "
         "| staged (pipelined copies through pinned host buffers) | cuda-ipc (CUDA IPC handles "
         "between ranks on one node; device-to-device copies)")
      ->capture_default_str();
  app.add_option("--gpu-chunk", o.gpu_chunk,
                 "Chunk of the staged pipeline (device frames up to this size travel in one "
                 "piece)")
      ->capture_default_str();
  app.add_option("--gpu-sync-copy", o.gpu_sync_copy,
                 "Staged messages with at most this many device bytes (sent in one piece) are "
                 "copied with a blocking cudaMemcpy instead of a lane copy polled through an "
                 "event (0 = never)")
      ->capture_default_str();
  app.add_option("--gpu-read-completion", o.gpu_read_completion,
                 "Staged: when a read of device memory returns. host: its bytes have landed "
                 "(as UCX and Dask's comms complete) | stream: its host-to-device copies are "
                 "queued on the legacy default stream, so later work there (and a cudaMemcpy "
                 "out) sees them, as NCCL completes on a stream. Timing then synchronises the "
                 "default stream before each per-trip sample ends, once per repetition "
                 "(--timing per-repetition, as nccl-tests does), and before a bandwidth ack")
      ->capture_default_str();
  app.add_option("--max-frame", o.max_frame,
                 "Largest frame a peer may send us (default: --max-size plus 64 KiB of slack; "
                 "a message may hold that plus 64 KiB)");
  app.add_flag("--test-stray", o.test_stray,
               "Testing aid: run with -np 3; rank 2 keeps connecting to rank 1's tcp or raw-tcp "
               "listener as a stray (wrong token, wrong identity, old hello, silence) while the "
               "run goes on; the sidecar's rejected_peers counts the refusals");
  app.add_option("--test-corrupt-payload", o.corrupt_every,
                 "Testing aid: the sender flips one byte of every Nth message it fills with "
                 "the validation pattern (needs --validate), as a faulty wire would, to prove "
                 "that validation reports FAILED and the run exits 1 (0 = never)");
  app.add_option("--inject-delay", o.delay,
                 "Testing aid: sleep this many microseconds (e.g. 5) inside every coroutine "
                 "write, to prove the regression gate catches a slower backend");
}

ProgramShape bench_program_shape(const std::string& program) {
  return {
      program, true, {{"min", "--min-size"}, {"max", "--max-size"}, {"factor", "--factor"}}, {}};
}

namespace {
// A size that cannot work is refused here, before MPI starts or anything is allocated:
// a coroutine backend's peer refuses frames above --max-frame, and every rank holds a
// send buffer and receive storage of the largest size.
void check_fits(const BenchOptions& o) {
  size_t largest = o.sizes.back();
  bool coroutine = false;
  for (const auto& s : o.specs) coroutine = coroutine || !is_raw_baseline(s.name);
  uint64_t max_frame = o.backend_options.limits.max_frame_bytes;
  if (coroutine && largest > max_frame)
    throw std::invalid_argument("--max-size " + format_size(largest) +
                                " exceeds the largest frame a peer accepts (--max-frame " +
                                format_size(max_frame) + ")");
  uint64_t phys = physical_memory_bytes();
  if (phys > 0 && largest > phys / 2)
    throw std::invalid_argument("--max-size " + format_size(largest) +
                                " needs two buffers of that size per rank; this host has " +
                                std::to_string(phys >> 20) + " MiB of memory");
}

}  // namespace

void resolve_bench_options(BenchOptions& o) {
  resolve_selection(o, Family::microbench);
  if (o.bidirectional)
    for (const auto& spec : o.specs)
      refuse_stalling_policy(backend_policies(spec.name, true), spec.progress, spec.name,
                             "--bidirectional (both ranks send and receive at once)");
  if (!o.size_range.empty()) {
    auto colon = o.size_range.find(':');
    o.max_size = o.size_range.substr(colon == std::string::npos ? 0 : colon + 1);
    if (colon != std::string::npos) o.min_size = o.size_range.substr(0, colon);
  }
  size_t lo = parse_size(o.min_size), hi = parse_size(o.max_size);
  o.sizes = size_sweep(lo, hi, o.factor);
  o.large_bytes = parse_size(o.large_size);
  // Each repetition times iters / reps iterations: fewer iterations than repetitions
  // would time none and report 0 us (and validate nothing) as a result.
  if (o.reps > o.iters)
    throw std::invalid_argument("--reps (" + std::to_string(o.reps) + ") exceeds --iters (" +
                                std::to_string(o.iters) + "): every repetition needs an iteration");
  if (o.reps > o.iters_large)
    throw std::invalid_argument("--reps (" + std::to_string(o.reps) + ") exceeds --iters-large (" +
                                std::to_string(o.iters_large) + ")");
  if (o.recv_buffers != "per-message" && o.recv_buffers != "shared")
    throw std::invalid_argument("--recv-buffers must be per-message or shared (got '" +
                                o.recv_buffers + "')");
  o.shared_recv_buffer = o.recv_buffers == "shared";
  if (o.timing != "per-trip" && o.timing != "per-repetition")
    throw std::invalid_argument("--timing must be per-trip or per-repetition (got '" + o.timing +
                                "')");
  o.time_per_trip = o.timing == "per-trip";
  if (!o.time_per_trip && !o.samples.empty())
    throw std::invalid_argument(
        "--samples needs --timing per-trip (per-repetition times no "
        "single round trip)");
  parse_memory_kind(o.memory);
  if (o.send_memory.empty()) o.send_memory = o.memory;
  if (o.recv_memory.empty()) o.recv_memory = o.memory;
  parse_memory_kind(o.send_memory);
  parse_memory_kind(o.recv_memory);
  o.gpu_chunk_bytes = parse_size_option("--gpu-chunk", o.gpu_chunk);
  if (o.gpu_chunk_bytes == 0) throw std::invalid_argument("--gpu-chunk must be > 0");
  o.gpu_sync_copy_bytes = parse_size_option("--gpu-sync-copy", o.gpu_sync_copy);
  if (o.gpu_read_completion != "host" && o.gpu_read_completion != "stream")
    throw std::invalid_argument("--gpu-read-completion must be host or stream (got '" +
                                o.gpu_read_completion + "')");
  o.gpu_stream_reads = o.gpu_read_completion == "stream";
  // What a peer may ask us to receive is what this run can send: a stray or corrupt
  // header asking for more is refused before anything is allocated (comm/limits.hpp).
  // The slack covers the 1-byte ack and a staged GPU chunk header.
  constexpr uint64_t kSlack = 64 << 10;
  uint64_t largest = o.sizes.empty() ? 0 : o.sizes.back();
  CommLimits& lim = o.backend_options.limits;
  lim.max_frame_bytes = o.max_frame.empty() ? largest + kSlack : parse_size(o.max_frame);
  lim.max_message_bytes = lim.max_frame_bytes + kSlack;
  check_fits(o);
  o.delay_ns = parse_inject_delay(o.delay);
  if (!o.json.empty() && !o.csv.empty() && o.json == CsvWriter::sidecar_path(o.csv))
    throw std::invalid_argument("--json " + o.json +
                                " is where --csv puts its metadata sidecar; "
                                "choose another name");
  if (o.corrupt_every > 0 && !o.validate)
    throw std::invalid_argument(
        "--test-corrupt-payload needs --validate (nothing checks the bytes)");
}

}  // namespace commbench
