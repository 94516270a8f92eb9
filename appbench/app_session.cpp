#include "app_session.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "comm/errors.hpp"
#include "comm/peer_auth.hpp"
#include "comm/registry.hpp"
#include "distributed/scheduler.hpp"
#include "distributed/worker.hpp"
#include "gpu/cuda_ipc_comm.hpp"
#include "gpu/staged_comm.hpp"
#include "harness/backend_listing.hpp"
#include "harness/host_memory.hpp"
#include "harness/inject_delay.hpp"
#include "harness/numeric_range.hpp"
#include "harness/option_listing.hpp"
#include "harness/progress_line.hpp"
#include "harness/result_schema.hpp"
#include "harness/sizes.hpp"
#include "run_metrics.hpp"
#include "runtime/spawn.hpp"

namespace commbench::app {

namespace {

uint64_t parse_u64(const std::string& s, const std::string& what) {
  size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos != s.size() || s.empty()) throw std::invalid_argument("bad " + what + " '" + s + "'");
  return v;
}

}  // namespace

AppSession::AppSession(int argc, char** argv, const Workload& workload,
                       const std::vector<WorkloadOption>& options,
                       const std::function<void(const AppOptions&)>& resolve)
    : layer_(argc, argv, workload.program) {
  CLI::App app{workload.description, layer_.program()};
  add_selection_options(app, opts_, Family::appbench);
  app.add_option("--layout", opts_.layout,
                 "Roles by rank: compact = scheduler+client on rank 0, workers on ranks >= 1; "
                 "dask = rank 0 scheduler, rank 1 client, workers on ranks >= 2 (dask-mpi)")
      ->capture_default_str();
  app.add_option("--preset", opts_.preset, workload.preset_help)->capture_default_str();
  const OptionRow<size_t> counts[] = {
      {"--runs", &opts_.runs, "Timed repetitions (one CSV row each)", 1},
      {"--warmup", &opts_.warmup,
       "Untimed repetitions before them: open connections and reach the steady state (at the "
       "default transpose size the first 5 runs are up to 2x slower)"},
      {"--fetch-concurrency", &opts_.fetch_concurrency,
       "Dependency fetches in flight per worker, each on its own pooled connection", 1},
  };
  add_option_rows(app, counts, ShowDefault::yes);
  with_range(app.add_option("--slice-us", opts_.slice_us,
                            "A task hands the event loop back after this many microseconds of "
                            "work, so transfers keep moving while it computes (> 0)")
                 ->capture_default_str(),
             0);
  // The options that name a file or a testing aid: empty = not asked for.
  const OptionRow<std::string> named[] = {
      {"--csv", &opts_.csv, "Write one tidy CSV row per repetition here (+ .json sidecar)"},
      {"--transfer-log", &opts_.transfer_log,
       "Write every worker-to-worker transfer (run, from, to, key, bytes, start, seconds) to "
       "this CSV file"},
      {"--test-kill-worker", &opts_.test_kill,
       "Testing aid WORKER:TASK: worker WORKER (0-based) exits like a crash when it receives "
       "its TASK-th task; the client must fail naming it"},
      {"--inject-delay", &opts_.inject_delay,
       "Testing aid: busy-wait this many microseconds (e.g. 100) before every data write from "
       "one worker to another (the fetches whose time is comm time), to prove the regression "
       "gate catches a slower app communication path"},
  };
  add_option_rows(app, named, ShowDefault::no);
  app.add_option("--memory", opts_.memory,
                 "Where workers keep their data blocks and run their kernels: host | cuda "
                 "(device memory and CUDA kernels; needs a CUDA build and a GPU, or "
                 "COMMBENCH_SIMULATE_GPU=1 for the simulated device of the tests)")
      ->capture_default_str();
  app.add_option(
         "--gpu-path", opts_.gpu_path,
         "How device blocks cross the comm (--memory cuda): auto (pass-through when "
         "the library reports CUDA support at run time, else staged) | pass-through "
         "| staged (pipelined copies through pinned host buffers) | cuda-ipc (CUDA IPC handles "
         "between ranks on one node; device-to-device copies)")
      ->capture_default_str();
  app.add_option("--gpu-chunk", opts_.gpu_chunk, "Chunk of the staged pipeline (--memory cuda)")
      ->capture_default_str();
  app.add_option("--gpu-sync-copy", opts_.gpu_sync_copy,
                 "Staged messages with at most this many device bytes (sent in one piece) are "
                 "copied with a blocking cudaMemcpy instead of a lane copy polled through an "
                 "event (0 = never)")
      ->capture_default_str();
  app.add_option("--test-corrupt-fetch", opts_.corrupt_every,
                 "Testing aid: each worker flips one byte of every Nth value it fetches from a "
                 "peer, as a faulty wire would, to prove that validation reports FAILED and "
                 "the run exits 1 (0 = never)");
  for (const auto& o : options)
    std::visit(
        [&](auto* value) {
          CLI::Option* opt = app.add_option(o.flags, *value, o.help);
          if (o.show_default) opt->capture_default_str();
          with_range(opt, o.min, o.max);
        },
        o.value);
  layer_.parse(app, {layer_.program(), false, workload.sizes, layout_names()}, [&] {
    resolve_selection(opts_, Family::appbench);
    for (const auto& spec : opts_.specs)
      refuse_stalling_policy(backend_policies(spec.name, false), spec.progress, spec.name,
                             "an app (workers fetch from each other at once)");
    opts_.inject_delay_ns = parse_inject_delay(opts_.inject_delay);
    if (opts_.slice_us <= 0) throw std::invalid_argument("--slice-us must be > 0");
    parse_memory_kind(opts_.memory);
    if (opts_.gpu_path != "auto") gpu::parse_gpu_path(opts_.gpu_path);
    opts_.gpu_chunk_bytes = parse_size_option("--gpu-chunk", opts_.gpu_chunk);
    if (opts_.gpu_chunk_bytes == 0) throw std::invalid_argument("--gpu-chunk must be > 0");
    opts_.gpu_sync_copy_bytes = parse_size_option("--gpu-sync-copy", opts_.gpu_sync_copy);
    topo_.layout = parse_layout(opts_.layout);
    if (opts_.preset != "default" && opts_.preset != "paper")
      throw std::invalid_argument("unknown --preset '" + opts_.preset +
                                  "' (known: default, paper)");
    if (!opts_.test_kill.empty()) {
      auto c = opts_.test_kill.find(':');
      if (c == std::string::npos)
        throw std::invalid_argument("--test-kill-worker expects WORKER:TASK");
      parse_u64(opts_.test_kill.substr(0, c), "--test-kill-worker worker");
      if (parse_u64(opts_.test_kill.substr(c + 1), "--test-kill-worker task") == 0)
        throw std::invalid_argument("--test-kill-worker task counts from 1");
    }
    resolve(opts_);
  });
  layer_.start(argc, argv, opts_);
  topo_.ranks = boot().size();
  topo_.rank = boot().rank();
  if (topo_.ranks < min_ranks(topo_.layout))
    boot().fail_all("--layout " + opts_.layout + " needs at least " +
                    std::to_string(min_ranks(topo_.layout)) +
                    " ranks (scheduler, client, >= 1 "
                    "worker); got " +
                    std::to_string(topo_.ranks) + ": run it as mpirun -np " +
                    std::to_string(min_ranks(topo_.layout) + 1) + " " + layer_.program() + " ...");
  install_pooled_host_allocator();
  open_device();
  layer_.agree(loop_, opts_);
  if (topo_.is_client() && !opts_.csv.empty()) {
    try {
      csv_ = std::make_unique<CsvWriter>(opts_.csv);
    } catch (const std::exception& e) {
      boot().fail_here(e.what());
    }
  }
  if (topo_.is_client() && !opts_.transfer_log.empty()) {
    transfer_log_ = std::fopen(opts_.transfer_log.c_str(), "w");
    if (!transfer_log_) boot().fail_here("cannot write " + opts_.transfer_log);
    std::fprintf(transfer_log_, "run,from_worker,to_worker,key,bytes,start_s,seconds,MBps\n");
  }
}

AppSession::~AppSession() {
  if (transfer_log_) std::fclose(transfer_log_);
}

void AppSession::require_worker_memory(uint64_t bytes_per_worker, const std::string& what) {
  uint64_t phys = physical_memory_bytes();
  if (phys > 0 && bytes_per_worker > phys)
    boot().fail_all(what + " needs about " + std::to_string(bytes_per_worker >> 20) +
                    " MiB per worker; this host has " + std::to_string(phys >> 20) + " MiB");
  // No message of this run can be larger than all the workers hold together: that bounds
  // what a peer may ask us to receive (comm/limits.hpp), instead of the 8 GiB default a
  // stray or corrupt header could claim. The floor covers the control traffic (a task
  // graph of a small dataset can outgrow the data); the workers' count is known here.
  constexpr uint64_t kControlFloor = 64ull << 20, kSlack = 64ull << 10;
  uint64_t data = bytes_per_worker * static_cast<uint64_t>(std::max(topo_.workers(), 1));
  CommLimits& lim = opts_.backend_options.limits;
  lim.max_frame_bytes = std::max(data, kControlFloor) + kSlack;
  lim.max_message_bytes = lim.max_frame_bytes + kSlack;
}

void AppSession::create_backend() {
  BackendOptions bo = opts_.backend_options;
  bo.progress = opts_.backend().progress;
  try {
    backend_ = registry().create(opts_.backend().name, loop_, bo);
  } catch (const std::exception& e) {
    boot().fail_all(e.what());
  }
}

void AppSession::open_device() {
  if (parse_memory_kind(opts_.memory) == MemoryKind::host) return;
  // Every rank opens its device (the scheduler and client ranks too: every channel stages);
  // one line for the job when any rank has none.
  std::string why;
  gpu::DeviceOps* ops = gpu::device_ops(&why);
  if (boot().sum(ops ? 0 : 1) > 0)
    boot().fail_all("--memory cuda: " + (ops ? std::string("a rank has no usable GPU") : why));
  device_.ops = ops;
  device_.simulated = ops->name() == "host-simulated";
}

void AppSession::choose_gpu_path() {
  if (!device_.on_device()) return;
  try {
    device_.path = gpu::choose_path(opts_.gpu_path, backend_->accepts_device_memory());
  } catch (const std::exception& e) {
    boot().fail_all(e.what());
  }
  device_.sync_before_send = device_.path == gpu::GpuPath::pass_through;
  if (device_.path == gpu::GpuPath::cuda_ipc) {
    // Every channel (all ranks on one node): device blocks cross as IPC handles.
    gpu::CudaIpcOptions io;
    io.limits = opts_.backend_options.limits;
    channels_.set_wrapper([this, io](std::unique_ptr<Comm> inner) -> std::unique_ptr<Comm> {
      return std::make_unique<gpu::CudaIpcComm>(std::move(inner), *device_.ops, loop_, io);
    });
    return;
  }
  if (device_.path != gpu::GpuPath::staged) return;
  // Every channel of every rank stages (both ends of a comm must): control frames are
  // host memory and pass through the decorator uncopied; device frames arrive as device.
  gpu::StagedOptions so;
  so.chunk_bytes = opts_.gpu_chunk_bytes;
  so.sync_copy_max = opts_.gpu_sync_copy_bytes;
  so.limits = opts_.backend_options.limits;
  channels_.set_wrapper([this, so](std::unique_ptr<Comm> inner) -> std::unique_ptr<Comm> {
    return std::make_unique<gpu::StagedComm>(std::move(inner), *device_.ops, loop_, so);
  });
}

void AppSession::note(const std::string& line) {
  if (!topo_.is_client()) return;
  std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

Task<void> AppSession::handle(std::unique_ptr<Comm> comm) {
  // the rank the backend's hello named, vouched for by the job token (-1: none)
  int rank = rank_of_identity(comm->peer_id());
  auto ch = std::make_unique<Channel>(channels_, std::move(comm));
  Message in;
  Hello hello;
  try {
    hello = expect<Hello>(co_await ch->recv(in), "first message on a connection");
  } catch (const std::exception&) {
    opts_.backend_options.auth.count_rejected(refusal_of(std::current_exception()));
    co_return;  // not one of ours, or it left at once
  }
  // The role and index a Hello claims must be what the bootstrap says the connecting rank
  // is: a rank with the job token cannot pose as another worker or as the client.
  if (!topo_.plays(rank, hello.role, hello.index)) {
    opts_.backend_options.auth.count_rejected(Refusal::wrong_identity);
    co_return;
  }
  if (topo_.is_scheduler() && (hello.role == Role::worker || hello.role == Role::client)) {
    co_await scheduler_->serve(std::move(ch), hello);
  } else if (worker_ && (hello.role == Role::peer || hello.role == Role::client)) {
    co_await worker_->serve_data(std::move(ch), hello);
  }
}

void AppSession::print_header() {
  if (!topo_.is_client()) return;
  std::printf("# %s  run %s  mpi %s  backend %s  progress %s  layout %s  ranks %d  workers %d\n",
              layer_.program().c_str(), layer_.run_id().c_str(), Bootstrap::mpi_flavor().c_str(),
              opts_.backend().name.c_str(), backend_->progress().c_str(), to_string(topo_.layout),
              topo_.ranks, topo_.workers());
  if (device_.on_device())
    std::printf("# memory cuda  gpu-path %s  kernels %s  device %s\n",
                std::string(gpu::to_string(device_.path)).c_str(),
                device_.cuda_kernels() ? "cuda" : "host (simulated device)",
                device_.ops->name().c_str());
  if (!description_line.empty()) std::printf("# %s\n", description_line.c_str());
  const char* tput = rows_throughput ? "Mrows/s" : "MB/s";
  // worker_cpu: the busiest worker's CPU time (user + system) in the timed part -- on an
  // idle machine with a core per worker, the floor of the wall time. sched_cpu and
  // client_cpu: what the scheduler's and the client's ranks burnt meanwhile (one process
  // in the compact layout), i.e. the cost of the idle ranks' waiting policy.
  // comm: a worker's time with at least one transfer in flight (mean over workers),
  // comm_max: the largest; wait: idle with a task held back only by missing inputs.
  std::printf("%5s %10s %10s %10s %10s %10s %10s %10s %10s %10s %8s\n", "#run", "wall", "comm",
              "comm_max", "wait", "moved", tput, "worker_cpu", "sched_cpu", "client_cpu", "wrong");
  std::printf("%5s %10s %10s %10s %10s %10s %10s %10s %10s %10s %8s\n", "#", "s", "s", "s", "s",
              "MB", "", "ms", "ms", "ms", "");
  std::fflush(stdout);
}

void AppSession::close_connections() {
  // A coroutine may still be suspended in a read of a connection whose owner is about to
  // go (the scheduler reading a worker that has not hung up yet, a worker serving a peer):
  // abort them all, give the loop the turns in which those readers fail and unwind, then
  // destroy the roles -- all while the loop and the backend still exist.
  channels_.abort_all();
  if (!loop_.settle_detached(std::chrono::seconds(5)))
    std::fprintf(stderr,
                 "%s: rank %d: %zu tasks still waiting 5 s after every connection was "
                 "closed; tearing down anyway\n",
                 layer_.program().c_str(), topo_.rank, loop_.live_detached());
  client_.reset();
  worker_.reset();
  scheduler_.reset();
}

int AppSession::run(const std::function<Task<void>(Client&)>& driver) {
  // Created here, after the workload has stated its data size (require_worker_memory),
  // which sets the limits the backend enforces.
  create_backend();
  choose_gpu_path();
  // Every rank listens; the addresses travel through the bootstrap, nothing else does.
  try {
    listener_ = backend_->make_listener(backend_->default_listen_address(layer_.iface().address));
    loop_.run(listener_->start([this](std::unique_ptr<Comm> c) { return handle(std::move(c)); }));
  } catch (const std::exception& e) {
    boot().fail_here(std::string("cannot listen: ") + e.what());
  }
  topo_.addresses = boot().allgather(listener_->contact_address());
  auto timeout = std::chrono::nanoseconds(static_cast<long long>(opts_.connect_timeout_s * 1e9));
  if (topo_.is_scheduler()) scheduler_ = std::make_unique<Scheduler>(loop_, topo_, timeout);
  if (topo_.is_worker()) {
    WorkerOptions wo;
    wo.fetch_concurrency = opts_.fetch_concurrency;
    wo.slice_ns = static_cast<uint64_t>(opts_.slice_us * 1000);
    wo.connect_timeout = timeout;
    wo.inject_delay_ns = opts_.inject_delay_ns;
    wo.corrupt_every = opts_.corrupt_every;
    if (!opts_.test_kill.empty()) {
      auto c = opts_.test_kill.find(':');
      if (parse_u64(opts_.test_kill.substr(0, c), "worker") ==
          static_cast<uint64_t>(topo_.worker_index()))
        wo.die_at_task = parse_u64(opts_.test_kill.substr(c + 1), "task");
    }
    worker_ = std::make_unique<Worker>(channels_, topo_, *backend_, functions_, wo);
  }
  if (topo_.is_client()) {
    client_ = std::make_unique<Client>(channels_, topo_, *backend_, timeout);
    print_header();
  }
  boot().barrier();  // every listener is up and every role object exists

  auto role_main = [&]() -> Task<void> {
    if (topo_.is_client()) {
      co_await client_->connect();
      co_await driver(*client_);
      co_await client_->shutdown();
    }
    if (scheduler_) co_await scheduler_->wait_shutdown();
    if (worker_) co_await worker_->run();
  };
  try {
    loop_.run(role_main());
  } catch (const std::exception& e) {
    // The job cannot go on without this rank: one line, then the launcher stops the rest.
    boot().fail_here(e.what());
  }
  listener_->stop();

  Json s;
  s["backend"] = opts_.backend().name;
  s["progress"] = backend_->progress();
  s["idle_rule"] = opts_.backend().idle;  // "" = --idle-spin (spin_budget_ns)
  s["layout"] = to_string(topo_.layout);
  s["workers"] = topo_.workers();
  s["runs"] = opts_.runs;
  s["warmup"] = opts_.warmup;
  s["preset"] = opts_.preset;
  s["fetch_concurrency"] = opts_.fetch_concurrency;
  s["slice_us"] = opts_.slice_us;
  s["inject_delay_ns"] = opts_.inject_delay_ns;
  s["test_corrupt_fetch_every"] = opts_.corrupt_every;
  s["max_frame_bytes"] = opts_.backend_options.limits.max_frame_bytes;
  s["max_message_bytes"] = opts_.backend_options.limits.max_message_bytes;
  s["memory"] = device_.memory_name();
  s["gpu_path"] = std::string(gpu::to_string(device_.path));
  if (device_.on_device()) {
    s["gpu_path_requested"] = opts_.gpu_path;
    s["gpu_chunk_bytes"] = opts_.gpu_chunk_bytes;
    s["gpu_sync_copy_bytes"] = opts_.gpu_sync_copy_bytes;
    s["gpu_schedule"] = gpu::device_schedule();
    s["gpu"] = gpu::describe_gpu();
    s["kernels"] = device_.cuda_kernels() ? "cuda" : "host (simulated device)";
  }
  s.update(settings);
  // Rank 0's connections, while they are still open (the library describes live ones).
  Json meta = layer_.metadata(s, opts_, loop_, [&] {
    Json transports = Json::object();
    if (auto t = channels_.transports(); !t.empty())
      transports[opts_.backend().name + ":" + backend_->progress()] = t;
    return transports;
  });
  boot().barrier();  // every rank's roles are done: nobody still needs a connection
  close_connections();
  layer_.add_rejected_peers(meta, opts_);  // after teardown: strays met while closing count
  if (topo_.is_client()) {
    std::fputs(summary_.text(rows_throughput ? "Mrows/s" : "MB/s").c_str(), stdout);
    if (csv_) csv_->commit(sidecar_text(meta));
    // A run that timed and checked nothing has nothing to pass.
    bool passed = total_wrong_ == 0 && records_ > 0;
    std::printf("# validation: %s (%llu wrong%s)\n", passed ? "PASSED" : "FAILED", total_wrong_,
                records_ > 0 ? "" : ", no timed run");
    std::fflush(stdout);
  }
  long long wrong = boot().sum(
      topo_.is_client() ? static_cast<long long>(total_wrong_ + (records_ > 0 ? 0 : 1)) : 0);
  return wrong == 0 ? 0 : 1;
}

Task<void> AppSession::repeat(Client& client, GraphFn graph, CheckFn check) {
  ProgressLine line(layer_.program(), "runs", opts_.warmup + opts_.runs, topo_.is_client());
  for (size_t r = 0; r < opts_.warmup + opts_.runs; ++r) {
    std::vector<TaskSpec> tasks = graph(r);
    co_await client.stats();  // resets every worker's transfer log
    uint64_t cpu0 = process_cpu_ns();
    uint64_t start = EventLoop::now_ns();
    std::vector<KeyInfo> made = co_await client.compute(std::move(tasks));
    uint64_t stop = EventLoop::now_ns();
    uint64_t cpu1 = process_cpu_ns();
    RunRecord rec;
    rec.stats = co_await client.stats();
    std::vector<KeyInfo> checked = co_await check(r, rec);
    std::vector<std::string> drop;
    for (const auto& k : made) drop.push_back(k.key);
    for (const auto& k : checked) drop.push_back(k.key);
    co_await client.release(std::move(drop));
    line.step(r + 1, r < opts_.warmup ? "warm-up" : "timed");
    if (r < opts_.warmup) continue;
    rec.run = r - opts_.warmup;
    rec.wall_s = static_cast<double>(stop - start) * 1e-9;
    rec.client_cpu_ns = cpu1 - cpu0;
    record(rec);
  }
}

void AppSession::record(const RunRecord& r) {
  RunMetrics m = compute_run_metrics(r.stats, topo_.workers());
  for (const auto& w : r.stats)
    for (const auto& t : w.transfers) {
      summary_.add_transfer(t.from_worker, t.to_worker, t.bytes, t.duration_ns);
      if (transfer_log_)
        std::fprintf(transfer_log_, "%zu,%d,%d,%s,%llu,%.9f,%.9f,%.1f\n", r.run, t.from_worker,
                     t.to_worker, t.key.c_str(), static_cast<unsigned long long>(t.bytes),
                     t.start_ns * 1e-9, t.duration_ns * 1e-9,
                     t.duration_ns ? t.bytes * 1e3 / static_cast<double>(t.duration_ns) : 0.0);
    }
  // Bytes every worker received per second in which it had a transfer in flight.
  double mbps = m.comm_s > 0 ? static_cast<double>(m.bytes) / m.comm_s / 1e6 : 0;
  double rows_per_s = r.wall_s > 0 ? r.rows / r.wall_s : 0;
  summary_.add_run(r.wall_s, m.comm_s, rows_throughput ? rows_per_s / 1e6 : mbps);
  total_wrong_ += r.wrong;
  ++records_;
  std::printf("%5zu %10.4f %10.4f %10.4f %10.4f %10.1f %10.2f %10.1f %10.1f %10.1f %8llu\n", r.run,
              r.wall_s, m.comm_s, m.comm_s_max_worker, m.wait_s, static_cast<double>(m.bytes) / 1e6,
              rows_throughput ? rows_per_s / 1e6 : mbps, m.worker_cpu_ns * 1e-6,
              m.scheduler_cpu_ns * 1e-6, r.client_cpu_ns * 1e-6, r.wrong);
  std::fflush(stdout);
  if (!csv_) return;
  ResultRow row;
  row.set("benchmark", layer_.program())
      .set("origin", std::string("suite"))
      .set("backend", opts_.backend().name)
      .set("progress", backend_->progress())
      .set("idle", opts_.backend().idle)
      .set("mpi", Bootstrap::mpi_flavor())
      .set("memory_send", device_.memory_name())
      .set("memory_recv", device_.memory_name())
      .set("gpu_path", std::string(gpu::to_string(device_.path)))
      .set("layout", std::string(to_string(topo_.layout)))
      .set("ranks", topo_.ranks)
      .set("workers", topo_.workers())
      .set("size_bytes", size_value)
      .set("iterations", 1)
      .set("reps", opts_.runs)
      .set("wall_s", r.wall_s)
      .set("comm_s", m.comm_s)
      .set("comm_s_max_worker", m.comm_s_max_worker)
      .set("wait_s", m.wait_s)
      .set("wait_s_max_worker", m.wait_s_max_worker)
      .set("transfer_s", m.transfer_s)
      .set("bytes_moved", m.bytes)
      .set("wrong", r.wrong)
      .set("validated", 1)
      .set("run", r.run)
      .set("run_id", layer_.run_id());
  if (auto it = opts_.backend_options.extra.find("wire"); it != opts_.backend_options.extra.end())
    row.set("wire", it->second);
  if (rows_throughput)
    row.set("rows_per_s", rows_per_s);
  else
    row.set("throughput_MBps", mbps);
  csv_->write(row);
}

}  // namespace commbench::app
