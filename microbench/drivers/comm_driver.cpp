#include "drivers/comm_driver.hpp"

#include <chrono>
#include <stdexcept>
#include <vector>

#include "comm/registry.hpp"
#include "harness/pattern.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"

namespace commbench {

namespace {

using Clock = EventLoop;

// Concurrent receives each need their own message storage; beyond this many bytes in
// flight the receiver posts a window in batches (memory stays bounded at 64 MiB × 64).
constexpr size_t kReceiveBudget = 1ull << 30;

class CommDriver final : public Driver {
 public:
  CommDriver(const BackendSpec& spec, DriverEnv& env) : env_(env), scheme_(spec.name) {
    BackendOptions o = env.opts.backend_options;
    o.progress = spec.progress;
    backend_ = registry().create(scheme_, env.loop, o);
  }

  std::string backend() const override { return scheme_; }
  std::string progress() const override { return backend_->progress(); }
  std::string wire() const override {
    auto it = env_.opts.backend_options.extra.find("wire");
    return it == env_.opts.backend_options.extra.end() ? "" : it->second;
  }

  void connect() override {
    auto timeout = std::chrono::nanoseconds(
        static_cast<long long>(env_.opts.connect_timeout_s * 1e9));
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
  }

  void prepare(size_t max_size) override {
    send_.reserve(max_size, MemoryKind::host);
    ack_byte_ = std::byte{1};
  }

  size_t pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                  uint64_t* samples) override {
    if (rank() > 1) return 0;
    return env_.loop.run(run_pingpong(size, iters, seed, validate, samples));
  }

  size_t bandwidth(size_t size, size_t iters, size_t window, bool bidir, uint64_t seed,
                   bool validate) override {
    if (rank() > 1) return 0;
    return env_.loop.run(run_bandwidth(size, iters, window, bidir, seed, validate));
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

  void inject_delay() const {
    if (env_.opts.delay_ns == 0) return;
    uint64_t until = Clock::now_ns() + env_.opts.delay_ns;
    while (Clock::now_ns() < until) {
    }
  }

  static size_t check(const Message& m, size_t size, uint64_t seed) {
    if (m.frames.size() != 1 || m.frames[0].size != size) return size == 0 ? 1 : size;
    return check_pattern(m.frames[0].data, size, seed);
  }

  Task<size_t> run_pingpong(size_t size, size_t iters, uint64_t seed, bool validate,
                            uint64_t* samples) {
    Message out({Buffer{send_.data(), size, MemoryKind::host}});
    Comm& comm = *comm_;
    size_t wrong = 0;
    bool initiator = rank() == 0;
    for (size_t i = 0; i < iters; ++i) {
      uint64_t mine = seed + 2 * i + (initiator ? 0 : 1);
      uint64_t theirs = seed + 2 * i + (initiator ? 1 : 0);
      if (validate) fill_pattern(send_.data(), size, mine);
      if (initiator) {
        uint64_t t0 = Clock::now_ns();
        inject_delay();
        co_await comm.write(out);
        co_await comm.read(in_);
        samples[i] = Clock::now_ns() - t0;
      } else {
        co_await comm.read(in_);
        if (validate) wrong += check(in_, size, theirs);
        inject_delay();
        co_await comm.write(out);
        continue;
      }
      if (validate) wrong += check(in_, size, theirs);
    }
    co_return wrong;
  }

  Task<void> write_one(const Message& m) {
    inject_delay();
    co_await comm_->write(m);
  }

  // Receives `count` messages, at most `slots` in flight; returns wrong bytes.
  Task<size_t> receive_window(size_t size, size_t count, uint64_t seed, bool validate) {
    size_t slots = std::min(count, std::max<size_t>(1, kReceiveBudget / std::max<size_t>(size, 1)));
    if (rx_.size() < slots) rx_.resize(slots);
    size_t wrong = 0;
    for (size_t done = 0; done < count;) {
      size_t batch = std::min(slots, count - done);
      std::vector<Task<void>> reads;
      reads.reserve(batch);
      for (size_t j = 0; j < batch; ++j) reads.push_back(comm_->read(rx_[j]));
      co_await when_all(std::move(reads));
      if (validate)
        for (size_t j = 0; j < batch; ++j) wrong += check(rx_[j], size, seed);
      done += batch;
    }
    co_return wrong;
  }

  Task<void> send_window(const Message& out, size_t window) {
    std::vector<Task<void>> writes;
    writes.reserve(window);
    for (size_t j = 0; j < window; ++j) writes.push_back(write_one(out));
    co_await when_all(std::move(writes));
  }

  Task<size_t> run_bandwidth(size_t size, size_t iters, size_t window, bool bidir, uint64_t seed,
                             bool validate) {
    Message out({Buffer{send_.data(), size, MemoryKind::host}});
    Message ack({Buffer{&ack_byte_, 1, MemoryKind::host}});
    size_t wrong = 0;
    for (size_t i = 0; i < iters; ++i) {
      if (validate) fill_pattern(send_.data(), size, seed + i);
      if (bidir) {
        size_t w = 0;
        auto recv = [&]() -> Task<void> { w = co_await receive_window(size, window, seed + i, validate); };
        co_await when_all(send_window(out, window), recv());
        wrong += w;
      } else if (rank() == 0) {
        co_await send_window(out, window);
        co_await comm_->read(ack_in_);
      } else {
        wrong += co_await receive_window(size, window, seed + i, validate);
        co_await comm_->write(ack);
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
  Message in_;
  Message ack_in_;
  std::vector<Message> rx_;
  std::byte ack_byte_{};
};

}  // namespace

std::unique_ptr<Driver> make_comm_driver(const BackendSpec& spec, DriverEnv& env) {
  return std::make_unique<CommDriver>(spec, env);
}

}  // namespace commbench
