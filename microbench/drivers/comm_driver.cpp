#include "drivers/comm_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <vector>

#include "comm/registry.hpp"
#include "drivers/window_buffers.hpp"
#include "gpu/gpu_path.hpp"
#include "gpu/staged_comm.hpp"
#include "harness/inject_delay.hpp"
#include "harness/pattern.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"

namespace commbench {

namespace {

using Clock = EventLoop;

class CommDriver final : public Driver {
 public:
  CommDriver(const BackendSpec& spec, DriverEnv& env) : env_(env), scheme_(spec.name) {
    BackendOptions o = env.opts.backend_options;
    o.progress = spec.progress;
    backend_ = registry().create(scheme_, env.loop, o);
    setup_gpu();
  }

  std::string backend() const override { return scheme_; }
  std::string progress() const override { return backend_->progress(); }
  std::string wire() const override {
    auto it = env_.opts.backend_options.extra.find("wire");
    return it == env_.opts.backend_options.extra.end() ? "" : it->second;
  }
  std::string gpu_path() const override { return std::string(gpu::to_string(path_)); }
  std::vector<std::string> transports() const override {
    return comm_ ? comm_->transports() : std::vector<std::string>{};
  }

  void connect() override {
    auto timeout =
        std::chrono::nanoseconds(static_cast<long long>(env_.opts.connect_timeout_s * 1e9));
    std::string contact;
    if (rank() == 1) {
      listener_ = backend_->make_listener(backend_->default_listen_address(env_.host));
      env_.loop.run(listener_->start([this](std::unique_ptr<Comm> c) -> Task<void> {
        if (!comm_) comm_ = std::move(c);
        co_return;
      }));
      contact = listener_->contact_address();
    }
    auto addresses = env_.boot.allgather(contact);
    if (rank() == 0) {
      auto connector = backend_->make_connector();
      comm_ = env_.loop.run(connector->connect(addresses[1], timeout));
    } else if (rank() == 1) {
      env_.loop.run(with_timeout(env_.loop, timeout, [this](CancelToken t) -> Task<void> {
        while (!comm_) co_await env_.loop.sleep_for(std::chrono::microseconds(50), t);
      }));
      listener_->stop();
    }
    if (path_ == gpu::GpuPath::staged && comm_) {
      gpu::StagedOptions so;
      so.chunk_bytes = env_.opts.gpu_chunk_bytes;
      so.deliver = recv_kind_;  // the receiver's --recv-memory, whatever the sender used
      so.limits = env_.opts.backend_options.limits;
      comm_ = std::make_unique<gpu::StagedComm>(std::move(comm_), *ops_, env_.loop, so);
    }
  }

  void prepare(size_t max_size) override {
    send_.reserve(max_size, send_kind_);
    if (ops_) {  // validation patterns are made and checked in host memory
      send_shadow_.reserve(max_size, MemoryKind::host);
      recv_shadow_.reserve(max_size, MemoryKind::host);
    }
    ack_byte_ = std::byte{1};
  }

  size_t pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                  uint64_t* samples) override {
    if (rank() > 1) return 0;
    return run_watched(
        [&](CancelToken t) { return run_pingpong(size, iters, seed, validate, samples, t); });
  }

  size_t bandwidth(size_t size, size_t iters, size_t window, bool bidir, uint64_t seed,
                   bool validate) override {
    if (rank() > 1) return 0;
    return run_watched([&](CancelToken t) {
      return run_bandwidth(size, iters, window, bidir, seed, validate, t);
    });
  }

  void close() override {
    if (comm_) {
      env_.loop.run(comm_->close());
      comm_.reset();
    }
    listener_.reset();
  }

 private:
  int rank() const { return env_.boot.rank(); }

  // Runs a measurement with a watchdog for --read-timeout: the reads count completed
  // messages (one increment, nothing on the timed path waits on a timer); when none
  // completes for the timeout, every pending read and write is cancelled and the run
  // fails naming the stall, instead of waiting forever on a dead or hung peer.
  template <typename Make>
  size_t run_watched(Make make) {
    uint64_t timeout_ns = static_cast<uint64_t>(env_.opts.read_timeout_s * 1e9);
    if (timeout_ns == 0) return env_.loop.run(make(CancelToken{}));
    CancelSource stall, stop;
    size_t result = 0;
    std::exception_ptr error;
    auto body = [&]() -> Task<void> {
      try {
        result = co_await make(stall.token());
      } catch (...) {
        error = std::current_exception();
      }
      stop.cancel();
    };
    auto watchdog = [&]() -> Task<void> {
      auto step =
          std::chrono::nanoseconds(std::clamp<uint64_t>(timeout_ns / 4, 1'000'000, 1'000'000'000));
      uint64_t seen = progress_, since = Clock::now_ns();
      try {
        for (;;) {
          co_await env_.loop.sleep_for(step, stop.token());
          if (progress_ != seen) {
            seen = progress_;
            since = Clock::now_ns();
          } else if (Clock::now_ns() - since >= timeout_ns) {
            stall.cancel(true);
            co_return;
          }
        }
      } catch (const OperationCancelled&) {
      }
    };
    env_.loop.run(when_all(body(), watchdog()));
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (const TimeoutError&) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", env_.opts.read_timeout_s);
        throw std::runtime_error(std::string("nothing received from the peer for --read-timeout ") +
                                 secs + " s (peer stalled or dead)");
      }
    }
    return result;
  }

  void inject_delay() const { commbench::inject_delay(env_.opts.delay_ns); }

  // Device memory: a pass-through library may deliver into any kind, so the frame's own
  // kind decides. Device buffers are filled and checked through a host copy (a blocking
  // cudaMemcpy), so validated device timings include those copies as well.
  size_t check(const Message& m, size_t size, uint64_t seed) {
    if (m.frames.size() != 1 || m.frames[0].size != size) return size == 0 ? 1 : size;
    const void* data = m.frames[0].data;
    if (m.frames[0].kind != MemoryKind::host) {
      ops_->copy(recv_shadow_.data(), data, size);
      data = recv_shadow_.data();
    }
    return check_pattern(data, size, seed);
  }

  void fill(size_t size, uint64_t seed) {
    if (send_kind_ == MemoryKind::host) return fill_pattern(send_.data(), size, seed);
    fill_pattern(send_shadow_.data(), size, seed);
    ops_->copy(send_.data(), send_shadow_.data(), size);
  }

  // Device buffers need a device (checked by the session) and a path: pass-through when
  // the library takes device pointers, else the staging decorator (gpu/staged_comm.hpp).
  void setup_gpu() {
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
  }

  Task<size_t> run_pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                            uint64_t* samples, CancelToken token) {
    Message out({Buffer{send_.data(), size, send_kind_}});
    Comm& comm = *comm_;
    size_t wrong = 0;
    bool initiator = rank() == 0;
    for (size_t i = 0; i < iters; ++i) {
      uint64_t mine = seed + 2 * i + (initiator ? 0 : 1);
      uint64_t theirs = seed + 2 * i + (initiator ? 1 : 0);
      if (validate) fill(size, mine);
      if (initiator) {
        uint64_t t0 = Clock::now_ns();
        inject_delay();
        co_await comm.write(out, token);
        co_await comm.read(in_, token);
        ++progress_;
        samples[i] = Clock::now_ns() - t0;
      } else {
        co_await comm.read(in_, token);
        ++progress_;
        if (validate) wrong += check(in_, size, theirs);
        inject_delay();
        co_await comm.write(out, token);
        continue;
      }
      if (validate) wrong += check(in_, size, theirs);
    }
    co_return wrong;
  }

  Task<void> write_one(const Message& m, CancelToken token) {
    inject_delay();
    co_await comm_->write(m, token);
  }

  // Receives `count` messages, at most `slots` in flight; returns wrong bytes.
  Task<void> read_one(Message& m, CancelToken token) {
    co_await comm_->read(m, token);
    ++progress_;
  }

  Task<size_t> receive_window(size_t size, size_t count, uint64_t seed, bool validate,
                              CancelToken token) {
    // Concurrent reads each own their message: window_slots() of them at a time, the
    // budget every driver's window keeps; messages a larger size no longer needs go.
    size_t slots = window_slots(size, count);
    rx_.resize(slots);
    size_t wrong = 0;
    for (size_t done = 0; done < count;) {
      size_t batch = std::min(slots, count - done);
      std::vector<Task<void>> reads;
      reads.reserve(batch);
      for (size_t j = 0; j < batch; ++j) reads.push_back(read_one(rx_[j], token));
      co_await when_all(std::move(reads));
      if (validate)
        for (size_t j = 0; j < batch; ++j) wrong += check(rx_[j], size, seed);
      done += batch;
    }
    co_return wrong;
  }

  Task<void> send_window(const Message& out, size_t window, CancelToken token) {
    std::vector<Task<void>> writes;
    writes.reserve(window);
    for (size_t j = 0; j < window; ++j) writes.push_back(write_one(out, token));
    co_await when_all(std::move(writes));
  }

  Task<size_t> run_bandwidth(size_t size, size_t iters, size_t window, bool bidir, uint64_t seed,
                             bool validate, CancelToken token) {
    Message out({Buffer{send_.data(), size, send_kind_}});
    Message ack({Buffer{&ack_byte_, 1, MemoryKind::host}});
    size_t wrong = 0;
    for (size_t i = 0; i < iters; ++i) {
      if (validate) fill(size, seed + i);
      if (bidir) {
        size_t w = 0;
        auto recv = [&]() -> Task<void> {
          w = co_await receive_window(size, window, seed + i, validate, token);
        };
        co_await when_all(send_window(out, window, token), recv());
        wrong += w;
      } else if (rank() == 0) {
        co_await send_window(out, window, token);
        co_await read_one(ack_in_, token);
      } else {
        wrong += co_await receive_window(size, window, seed + i, validate, token);
        co_await comm_->write(ack, token);
      }
    }
    co_return wrong;
  }

  DriverEnv& env_;
  std::string scheme_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<Comm> comm_;
  Storage send_;
  Storage send_shadow_, recv_shadow_;  // host copies for validating device buffers
  MemoryKind send_kind_ = MemoryKind::host, recv_kind_ = MemoryKind::host;
  gpu::GpuPath path_ = gpu::GpuPath::none;
  gpu::DeviceOps* ops_ = nullptr;
  Message in_;
  Message ack_in_;
  std::vector<Message> rx_;
  std::byte ack_byte_{};
  uint64_t progress_ = 0;  // messages received, watched by run_watched()
};

}  // namespace

std::unique_ptr<Driver> make_comm_driver(const BackendSpec& spec, DriverEnv& env) {
  return std::make_unique<CommDriver>(spec, env);
}

}  // namespace commbench
