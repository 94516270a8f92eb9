#include "drivers/comm_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "comm/address.hpp"
#include "comm/peer_auth.hpp"
#include "comm/registry.hpp"
#include "gpu/cuda_ipc_comm.hpp"
#include "gpu/staged_comm.hpp"
#include "harness/pattern.hpp"
#include "runtime/timeout.hpp"

namespace commbench {

CommDriver::CommDriver(const BackendSpec& spec, DriverEnv& env) : Driver(env), scheme_(spec.name) {
  BackendOptions o = env.opts.backend_options;
  o.progress = spec.progress;
  backend_ = registry().create(scheme_, env.loop, o);
  setup_gpu();
}

CommDriver::~CommDriver() = default;

std::string CommDriver::progress() const {
  return backend_->progress();
}
std::string CommDriver::wire() const {
  auto it = env_.opts.backend_options.extra.find("wire");
  return it == env_.opts.backend_options.extra.end() ? "" : it->second;
}
std::string CommDriver::gpu_path() const {
  return std::string(gpu::to_string(path_));
}
std::vector<std::string> CommDriver::transports() const {
  return comm_ ? comm_->transports() : std::vector<std::string>{};
}

void CommDriver::connect() {
  auto timeout =
      std::chrono::nanoseconds(static_cast<long long>(env_.opts.connect_timeout_s * 1e9));
  std::string contact;
  if (rank() == 1) {
    listener_ = backend_->make_listener(backend_->default_listen_address(env_.host));
    env_.loop.run(listener_->start([this](std::unique_ptr<Comm> c) -> Task<void> {
      // The backend checked the job token; only rank 0 is the peer, and only once. Anyone
      // else with the token (another rank posing as the peer, a second connection) is
      // refused and counted; aborted now, destroyed in close() after the loop has run
      // (Comm::abort's contract).
      if (!comm_ && c->peer_id() == rank_identity(0)) {
        comm_ = std::move(c);
        co_return;
      }
      env_.opts.backend_options.auth.count_rejected(Refusal::wrong_identity);
      c->abort();
      strays_.push_back(std::move(c));
      co_return;
    }));
    contact = listener_->contact_address();
  }
  auto addresses = env_.boot.allgather(contact);
  if (rank() >= 2 && env_.opts.test_stray && registry().info(scheme_).hello_over_plain_tcp)
    stray_ = std::make_unique<StrayPeer>(parse_host_port(parse_address(addresses[1]).location),
                                         env_.opts.backend_options.auth.token);
  if (rank() == 0) {
    auto connector = backend_->make_connector();
    comm_ = env_.loop.run(connector->connect(addresses[1], timeout));
  } else if (rank() == 1) {
    env_.loop.run(with_timeout(env_.loop, timeout, [this](CancelToken t) -> Task<void> {
      while (!comm_) co_await env_.loop.sleep_for(std::chrono::microseconds(50), t);
    }));
    // The listener stays open until close(), as a Dask listener does for the whole run:
    // a stray that comes while the run measures is refused and counted too.
  }
  if (path_ == gpu::GpuPath::cuda_ipc && comm_) {
    gpu::CudaIpcOptions io;
    io.deliver = recv_kind_;
    io.limits = env_.opts.backend_options.limits;
    comm_ = std::make_unique<gpu::CudaIpcComm>(std::move(comm_), *ops_, env_.loop, io);
  }
  if (path_ == gpu::GpuPath::staged && comm_) {
    gpu::StagedOptions so;
    so.chunk_bytes = env_.opts.gpu_chunk_bytes;
    so.sync_copy_max = env_.opts.gpu_sync_copy_bytes;
    so.stream_ordered_reads = env_.opts.gpu_stream_reads;
    so.deliver = recv_kind_;  // the receiver's --recv-memory, whatever the sender used
    so.limits = env_.opts.backend_options.limits;
    comm_ = std::make_unique<gpu::StagedComm>(std::move(comm_), *ops_, env_.loop, so);
  }
}

void CommDriver::prepare(size_t max_size) {
  send_.reserve(max_size, send_kind_);
  // Touched once, as the raw baselines' buffers are: fresh anonymous memory that is only
  // read maps the kernel's one zero page, so an untouched 16 MiB source stays in cache
  // and the comm's large-message bandwidth would beat its DRAM-bound raw baseline.
  if (send_kind_ == MemoryKind::host) std::memset(send_.data(), 0, std::max<size_t>(max_size, 1));
  if (ops_) {  // validation patterns are made and checked in host memory
    send_shadow_.reserve(max_size, MemoryKind::host);
    recv_shadow_.reserve(max_size, MemoryKind::host);
  }
  ack_ = Message({Buffer{&ack_byte_, 1, MemoryKind::host}});
}

void CommDriver::close() {
  if (comm_) {
    env_.loop.run(comm_->close());
    comm_.reset();
  }
  if (listener_) listener_->stop();
  listener_.reset();
  strays_.clear();
  stray_.reset();
}

// Device memory: a pass-through library may deliver into any kind, so the frame's own
// kind decides. Device buffers are filled and checked through a host copy (cudaMemcpy),
// so validated device timings include those copies as well.
size_t CommDriver::check(const Message& m, size_t size, uint64_t seed) {
  if (m.frames.size() != 1 || m.frames[0].size != size) return size == 0 ? 1 : size;
  const void* data = m.frames[0].data;
  if (m.frames[0].kind != MemoryKind::host) {
    ops_->copy(recv_shadow_.data(), data, size);
    data = recv_shadow_.data();
  }
  return check_pattern(data, size, seed);
}

void CommDriver::fill(size_t size, uint64_t seed) {
  if (send_kind_ == MemoryKind::host) return fill_pattern(send_.data(), size, seed);
  fill_pattern(send_shadow_.data(), size, seed);
  // cudaMemcpy from pageable memory may return before the bytes land on the device. The
  // staged comm orders its copies after it (its contract, backends/gpu/README.md); a
  // pass-through library (CUDA-aware MPI, UCX) is not stream-ordered, so the fill must
  // have finished before the buffer is handed to it, as Dask's UCX comm does too.
  ops_->copy(send_.data(), send_shadow_.data(), size);
  if (path_ == gpu::GpuPath::pass_through) ops_->synchronize_default();
}

// Device buffers need a device (checked by the session) and a path: pass-through when
// the library takes device pointers, else the staging decorator (gpu/staged_comm.hpp).
void CommDriver::setup_gpu() {
  send_kind_ = parse_memory_kind(env_.opts.send_memory);
  recv_kind_ = parse_memory_kind(env_.opts.recv_memory);
  if (send_kind_ == MemoryKind::host && recv_kind_ == MemoryKind::host) return;
  std::string why;
  ops_ = gpu::device_ops(&why);
  if (!ops_) throw std::runtime_error("--memory cuda: " + why);
  path_ = gpu::choose_path(env_.opts.gpu_path, backend_->accepts_device_memory());
  if (path_ == gpu::GpuPath::pass_through && send_kind_ != recv_kind_)
    throw std::invalid_argument(
        "--gpu-path pass-through delivers in the sender's memory kind; use --gpu-path "
        "staged for different --send-memory and --recv-memory");
  if (env_.opts.gpu_stream_reads && path_ != gpu::GpuPath::staged)
    throw std::invalid_argument(
        "--gpu-read-completion stream: only the staged path orders "
        "reads on a stream (this run's GPU path is " +
        std::string(gpu::to_string(path_)) + ")");
  stream_reads_ = env_.opts.gpu_stream_reads;
}

std::unique_ptr<Driver> make_comm_driver(const BackendSpec& spec, DriverEnv& env) {
  return std::make_unique<CommDriver>(spec, env);
}

}  // namespace commbench
