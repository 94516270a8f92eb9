// The driver for any backend in the comm registry: the coroutine comm interface, timed
// exactly like the raw baselines (one write + one read per half round trip). Its
// primitives return the comm's own tasks (or a thin awaitable around one), so a
// benchmark's coroutine loop awaits the library's write and read directly: no coroutine
// frame or allocation of the driver's per message.
#pragma once

#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "comm/comm.hpp"
#include "drivers/driver.hpp"
#include "gpu/gpu_path.hpp"
#include "harness/inject_delay.hpp"
#include "harness/progress_ticks.hpp"
#include "harness/stray_peer.hpp"
#include "runtime/task.hpp"

namespace commbench {

// Awaits a comm read or write, then counts it for the --read-timeout watchdogs (this
// driver's and the process's, harness/stall_watchdog.hpp): an awaitable around the
// operation's own task, so counting costs no coroutine frame. Writes count too: in a
// unidirectional bandwidth window rank 0 reads one ack per window, and a window of large
// messages over a slow link may take longer than the timeout while its writes complete.
class Counted {
 public:
  Counted(Task<void> op, uint64_t& count) : read_(std::move(op)), count_(count) {}

  auto operator co_await() && noexcept {
    using Inner = decltype(std::declval<Task<void>>().operator co_await());
    struct Awaiter {
      Inner inner;
      uint64_t& count;
      bool await_ready() noexcept { return inner.await_ready(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> h) noexcept {
        return inner.await_suspend(h);
      }
      void await_resume() {
        inner.await_resume();
        ++count;
        progress::tick();
      }
    };
    return Awaiter{std::move(read_).operator co_await(), count_};
  }

 private:
  Task<void>
      read_;  // the operation; alive until the co_await expression ends, so the frame outlives it
  uint64_t& count_;
};

class CommDriver final : public Driver {
 public:
  CommDriver(const BackendSpec& spec, DriverEnv& env);
  ~CommDriver() override;

  std::string backend() const override { return scheme_; }
  std::string progress() const override;
  std::string wire() const override;
  std::string gpu_path() const override;
  std::vector<std::string> transports() const override;
  void connect() override;
  void prepare(size_t max_size) override;
  void close() override;

  // Runs one repetition, the task make(token), on the event loop with a watchdog for
  // --read-timeout: reads and writes count completed messages (one increment, nothing on the
  // timed path waits on a timer); when none completes for the timeout, every pending read
  // and write is cancelled through the token and the run fails naming the stall, instead
  // of waiting forever on a dead or hung peer.
  size_t run_watched(const std::function<Task<size_t>(CancelToken)>& make);
  void allow_unit(size_t bytes) override;

  // The first `size` bytes of the send buffer, as a message.
  Message outgoing(size_t size) const { return Message({Buffer{send_.data(), size, send_kind_}}); }
  // Where a ping-pong reads; the messages of a window's batch of `slots` reads (every
  // concurrent read owns its message).
  Message& incoming() { return in_; }
  std::vector<Message>& window_messages(size_t slots) {
    rx_.resize(slots);
    return rx_;
  }
  // Validation patterns, through a host copy for device memory.
  void fill(size_t size, uint64_t seed);
  size_t check(const Message& m, size_t size, uint64_t seed);

  // Every data write carries --inject-delay, spent before the write starts; the ack
  // none. Reads and writes count for the watchdogs.
  Counted send(const Message& m, CancelToken token) {
    inject_delay(env_.opts.delay_ns);
    return {comm_->write(m, token), moved_};
  }
  Counted recv(Message& m, CancelToken token) { return {comm_->read(m, token), moved_}; }
  Counted send_ack(CancelToken token) { return {comm_->write(ack_, token), moved_}; }
  Counted recv_ack(CancelToken token) { return {comm_->read(ack_in_, token), moved_}; }

 private:
  void setup_gpu();

  std::string scheme_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<Comm> comm_;
  std::vector<std::unique_ptr<Comm>> strays_;  // refused on rank 1, aborted
  std::unique_ptr<StrayPeer> stray_;           // --test-stray, on a rank >= 2
  Storage send_;
  Storage send_shadow_, recv_shadow_;  // host copies for validating device buffers
  MemoryKind send_kind_ = MemoryKind::host, recv_kind_ = MemoryKind::host;
  gpu::GpuPath path_ = gpu::GpuPath::none;
  gpu::DeviceOps* ops_ = nullptr;
  Message in_, ack_in_, ack_;
  std::vector<Message> rx_;
  std::byte ack_byte_{1};
  uint64_t moved_ = 0;    // messages received or sent, watched by run_watched()
  uint64_t unit_ns_ = 0;  // allowance for the current unit's bytes (allow_unit)
};

std::unique_ptr<Driver> make_comm_driver(const BackendSpec& spec, DriverEnv& env);

}  // namespace commbench
