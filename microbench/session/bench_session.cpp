#include "session/bench_session.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "comm/buffer.hpp"
#include "gpu/gpu_path.hpp"
#include "harness/metadata.hpp"
#include "harness/pattern.hpp"
#include "harness/progress_line.hpp"
#include "harness/sizes.hpp"

namespace commbench {

namespace {
// The status of a run the stall watchdog ends (3 is --timeout's, 1 a failed validation).
constexpr int kStallExit = 4;

// "tcp:epoll at 8 B": what the stall watchdog's line says was running.
std::string doing(const Driver& d, size_t size) {
  return d.backend() + (d.progress().empty() ? "" : ":" + d.progress()) + " at " +
         format_size(size) + " B";
}
}  // namespace

BenchSession::BenchSession(int argc, char** argv, const std::string& program, BenchKind kind,
                           const std::string& description)
    : layer_(argc, argv, program),
      stall_(program, kStallExit, [](int code) { Bootstrap::abort_job(code); }) {
  CLI::App app{description, program};
  add_bench_options(app, opts_, kind);
  layer_.parse(app, bench_program_shape(program), [&] { resolve_bench_options(opts_); });
  corrupt_every_nth_fill(opts_.corrupt_every);
  layer_.start(argc, argv, opts_);
  if (boot().size() < 2)
    boot().fail_all("needs 2 ranks (got " + std::to_string(boot().size()) +
                    "); run it as: mpirun -np 2 " + program + " ...");
  bool device_memory = parse_memory_kind(opts_.send_memory) != MemoryKind::host ||
                       parse_memory_kind(opts_.recv_memory) != MemoryKind::host;
  if (device_memory) {
    // Every rank opens its device; one line for the job when any rank has none.
    std::string why;
    bool have = gpu::device_ops(&why) != nullptr;
    if (boot().sum(have ? 0 : 1) > 0)
      boot().fail_all("--memory cuda: " + (have ? std::string("a rank has no usable GPU") : why));
  }

  layer_.agree(loop_, opts_);
  base_loop_ = loop_.options();
  // Who the other rank of the pair is, by host name and address, so that every line about
  // a lost peer names it (on the virtual cluster, a host that went away).
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  auto names = boot().allgather(std::string(host) + ", " + layer_.iface().address);
  if (boot().rank() <= 1)
    peer_ =
        "peer rank " + std::to_string(1 - boot().rank()) + " (" + names[1 - boot().rank()] + ")";
  // Connecting has its own deadline (--connect-timeout); the watchdog backs it up for the
  // baselines that connect inside the library.
  watch(opts_.connect_timeout_s);
  env_ = std::make_unique<DriverEnv>(DriverEnv{boot(), loop_, opts_, layer_.iface().address});
  try {
    for (const auto& spec : opts_.specs) drivers_.push_back(make_driver(spec, *env_));
  } catch (const std::exception& e) {
    boot().fail_all(e.what());
  }
  if (device_memory)
    for (const auto& d : drivers_)
      if (d->gpu_path() == "none")
        boot().fail_all(d->backend() + " moves host memory only; drop it from --backend " +
                        "for --memory cuda (raw baselines have no device path)");
  // Only rank 0 writes the CSV, but every rank must learn that it cannot: a rank left
  // alone would wait in the next collective forever.
  std::string csv_error;
  if (boot().rank() == 0) {
    try {
      if (!opts_.csv.empty()) csv_ = std::make_unique<CsvWriter>(opts_.csv);
      if (!opts_.json.empty()) json_ = std::make_unique<JsonRowsWriter>(opts_.json);
      if (!opts_.samples.empty()) samples_ = std::make_unique<SampleLog>(opts_.samples);
    } catch (const std::exception& e) {
      csv_error = e.what();
    }
  }
  if (!boot().all(csv_error.empty())) boot().fail_all(csv_error);
  for (auto& d : drivers_) {
    try {
      d->connect();
      d->prepare(opts_.sizes.back());
    } catch (const std::exception& e) {
      fail_with_peer(d->backend() + ": " + e.what());
    }
    progress::tick();
  }
  boot().barrier();
  progress::tick();
  watch(opts_.read_timeout_s);
}

// One watchdog for every driver, raw or coroutine (harness/stall_watchdog.hpp): it fires
// --read-timeout after the last completed read or write, wherever the run blocks.
void BenchSession::watch(double silence_s) {
  if (boot().rank() > 1 || opts_.read_timeout_s <= 0) return stall_.disarm();
  stall_.arm(silence_s, boot().rank(), peer_);
}

void BenchSession::fail_with_peer(const std::string& what) {
  stall_.reported();
  boot().fail_here(peer_.empty() ? what : what + " [" + peer_ + "]");
}

BenchSession::~BenchSession() = default;

size_t BenchSession::iters_for(size_t size) const {
  return size >= opts_.large_bytes ? opts_.iters_large : opts_.iters;
}
size_t BenchSession::iters_per_rep(size_t size) const {
  return iters_for(size) / opts_.reps;
}
size_t BenchSession::warmup_for(size_t size) const {
  return size >= opts_.large_bytes ? opts_.warmup_large : opts_.warmup;
}

void BenchSession::record_samples(const Driver& d, size_t size, size_t rep,
                                  const uint64_t* round_trip_ns, size_t n) {
  if (samples_) samples_->add(d.backend(), d.progress(), d.idle(), size, rep, round_trip_ns, n);
}

void BenchSession::print_row(const std::vector<std::string>& cells) {
  if (boot().rank() != 0) return;
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    size_t w = i < widths_.size() ? widths_[i] : 10;
    std::string c = cells[i];
    if (c.size() < w) c = std::string(w - c.size(), ' ') + c;
    line += (i ? "  " : "") + c;
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void BenchSession::sweep(const WarmFn& warm, const RepFn& rep, const EmitFn& emit,
                         const std::vector<std::string>& columns,
                         const std::vector<std::string>& units) {
  widths_.clear();
  for (size_t i = 0; i < columns.size(); ++i)
    widths_.push_back(
        std::max({columns[i].size(), units.size() > i ? units[i].size() : 0, size_t{9}}));
  if (boot().rank() == 0) {
    std::printf("# %s  run %s  mpi %s  reps %zu (backends interleaved)\n", boot().program().c_str(),
                layer_.run_id().c_str(), Bootstrap::mpi_flavor().c_str(), opts_.reps);
    auto hdr = columns;
    hdr[0] = "#" + hdr[0];
    print_row(hdr);
    auto u = units;
    u[0] = "#" + u[0];
    print_row(u);
  }
  ProgressLine line(boot().program(), "sizes", opts_.sizes.size(), boot().rank() == 0);
  idle_stats_.assign(drivers_.size(), LoopStats{});
  size_t sizes_done = 0;
  for (size_t size : opts_.sizes) {
    // One unit that completes as a whole: a message, or a bandwidth window (raw-mpi's
    // MPI_Waitall reports nothing before the whole window is in).
    const size_t unit = opts_.kind == BenchKind::bandwidth ? size * opts_.window : size;
    stall_.allow_unit(unit);
    std::vector<Point> points(drivers_.size());
    for (size_t d = 0; d < drivers_.size(); ++d) {
      loop_.set_options(spec_loop_options(opts_.specs[d], base_loop_));
      stall_.doing(doing(*drivers_[d], size));
      try {
        warm(*drivers_[d], size);
      } catch (const std::exception& e) {
        fail_with_peer(drivers_[d]->backend() + " at " + format_size(size) + " B: " + e.what());
      }
    }
    for (size_t r = 0; r < opts_.reps; ++r)
      for (size_t d = 0; d < drivers_.size(); ++d) {
        // Each entry idles by its own rule (`@spin`, ...): set per repetition, not per
        // message, so the interleaved entries see the same minutes under their own rules.
        loop_.set_options(spec_loop_options(opts_.specs[d], base_loop_));
        stall_.doing(doing(*drivers_[d], size));
        LoopStats before = loop_.stats();
        try {
          rep(*drivers_[d], d, size, r, points[d]);
        } catch (const std::exception& e) {
          fail_with_peer(drivers_[d]->backend() + " at " + format_size(size) + " B: " + e.what());
        }
        LoopStats& acc = idle_stats_[d];
        acc.blocks += loop_.stats().blocks - before.blocks;
        acc.naps += loop_.stats().naps - before.naps;
        acc.slept_ns += loop_.stats().slept_ns - before.slept_ns;
      }
    for (size_t d = 0; d < drivers_.size(); ++d) {
      points[d].wrong = static_cast<size_t>(boot().sum(static_cast<long long>(points[d].wrong)));
      progress::tick();
      total_wrong_ += points[d].wrong;
      if (boot().rank() != 0) continue;
      Driver& drv = *drivers_[d];
      ResultRow row;
      row.set("origin", std::string("suite"))
          .set("backend", drv.backend())
          .set("progress", drv.progress())
          .set("wire", drv.wire())
          .set("idle", drv.idle())
          .set("mpi", Bootstrap::mpi_flavor())
          .set("memory_send", opts_.send_memory)
          .set("memory_recv", opts_.recv_memory)
          .set("gpu_path", drv.gpu_path())
          .set("ranks", boot().size())
          .set("size_bytes", size)
          .set("iterations", iters_per_rep(size) * opts_.reps)  // what was timed
          .set("reps", opts_.reps)
          .set("validated", opts_.validate ? 1 : 0)
          .set("run_id", layer_.run_id());
      if (opts_.validate) row.set("wrong", points[d].wrong);
      emit(drv, size, points[d], row);
      if (csv_) csv_->write(row);
      if (json_) json_->write(row);
    }
    line.step(++sizes_done, std::to_string(size) + " B");
  }
  loop_.set_options(base_loop_);  // the sidecar's spin_budget_ns is the run's own
  stall_.doing("");
}

int BenchSession::finish() {
  boot().barrier();
  progress::tick();
  Json settings;
  std::vector<std::string> backends;
  for (const auto& d : drivers_)
    backends.push_back(d->backend() + ":" + d->progress() +
                       (d->idle().empty() ? "" : "@" + d->idle()));
  settings["backends"] = backends;
  // Per entry, both ranks' loops summed over the timed repetitions: a spin entry never
  // blocks or naps, a block entry does between messages (raw baselines: 0, no loop runs).
  Json idle = Json::array();
  for (size_t i = 0; i < drivers_.size(); ++i) {
    const LoopStats& st = i < idle_stats_.size() ? idle_stats_[i] : LoopStats{};
    idle.push_back({{"entry", backends[i]},
                    {"blocks", boot().sum(static_cast<long long>(st.blocks))},
                    {"naps", boot().sum(static_cast<long long>(st.naps))},
                    {"slept_ns", boot().sum(static_cast<long long>(st.slept_ns))}});
  }
  settings["idle_per_entry"] = idle;
  settings["sizes_bytes"] = opts_.sizes;
  settings["iters"] = opts_.iters;
  settings["iters_large"] = opts_.iters_large;
  settings["warmup"] = opts_.warmup;
  settings["warmup_large"] = opts_.warmup_large;
  settings["large_size_bytes"] = opts_.large_bytes;
  settings["reps"] = opts_.reps;
  settings["window"] = opts_.window;
  settings["bidirectional"] = opts_.bidirectional;
  settings["validate"] = opts_.validate;
  settings["recv_buffers"] = opts_.recv_buffers;
  if (opts_.kind == BenchKind::pingpong) settings["timing"] = opts_.timing;
  settings["memory_send"] = opts_.send_memory;
  settings["memory_recv"] = opts_.recv_memory;
  settings["gpu_path_requested"] = opts_.gpu_path;
  settings["gpu_chunk_bytes"] = opts_.gpu_chunk_bytes;
  settings["gpu_sync_copy_bytes"] = opts_.gpu_sync_copy_bytes;
  settings["gpu_read_completion"] = opts_.gpu_read_completion;
  settings["gpu_schedule"] = gpu::device_schedule();  // "" when no device was opened
  settings["inject_delay_ns"] = opts_.delay_ns;
  settings["test_corrupt_payload_every"] = opts_.corrupt_every;
  // Before the close below: the library can only describe a live connection. Collecting
  // runs local probes that may take a while on a loaded machine: a longer silence.
  watch(std::max(opts_.read_timeout_s, 30.0));
  Json meta = layer_.metadata(settings, opts_, loop_, [&] {
    Json transports = Json::object();
    for (const auto& d : drivers_)
      if (auto t = d->transports(); !t.empty()) transports[d->backend() + ":" + d->progress()] = t;
    return transports;
  });
  for (auto& d : drivers_) {
    try {
      d->close();
    } catch (const std::exception&) {
      // closing after a complete run: a peer that already left is not an error
    }
  }
  progress::tick();
  watch(opts_.read_timeout_s);
  layer_.add_rejected_peers(meta, opts_);  // after the close: strays met in teardown count
  boot().barrier();
  progress::tick();
  stall_.disarm();  // past here only MPI_Finalize, bounded by its own watchdog
  if (const char* r = std::getenv("COMMBENCH_STALL_REPORT"); r && *r && boot().rank() <= 1)
    std::fprintf(stderr, "# rank %d: longest silence %.3f s\n", boot().rank(),
                 stall_.longest_silence_s());
  if (boot().rank() == 0) {
    std::string meta_text = sidecar_text(meta);
    if (csv_) csv_->commit(meta_text);
    if (json_) json_->commit(meta_text);
    if (samples_) samples_->commit();
    if (opts_.validate)
      std::printf("# validation: %s (%zu wrong bytes)\n", total_wrong_ == 0 ? "PASSED" : "FAILED",
                  total_wrong_);
  }
  return total_wrong_ == 0 ? 0 : 1;
}

}  // namespace commbench
