// The driver for any backend in the comm registry: the coroutine comm interface, timed
// exactly like the raw baselines (one write + one read per half round trip). Its
// primitives return the comm's own tasks (or a thin awaitable around one), so a
// benchmark's coroutine loop awaits the library's write and read directly: no coroutine
// frame or allocation of the driver's per message.
#pragma once

#include <coroutine>
#include <cstdint>
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

// Awaits a comm read or write, then counts it for the --read-timeout watchdog
// (harness/stall_watchdog.hpp, the run's only one): an awaitable around the operation's
// own task, so counting costs no coroutine frame. Writes count too: in a unidirectional
// bandwidth window rank 0 reads one ack per window, and a window of large messages over a
// slow link may take longer than the timeout while its writes complete.
class Counted {
 public:
  explicit Counted(Task<void> op) : read_(std::move(op)) {}

  auto operator co_await() && noexcept {
    using Inner = decltype(std::declval<Task<void>>().operator co_await());
    struct Awaiter {
      Inner inner;
      bool await_ready() noexcept { return inner.await_ready(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> h) noexcept {
        return inner.await_suspend(h);
      }
      void await_resume() {
        inner.await_resume();
        progress::tick();
      }
    };
    return Awaiter{std::move(read_).operator co_await()};
  }

 private:
  Task<void>
      read_;  // the operation; alive until the co_await expression ends, so the frame outlives it
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

  // Runs one repetition's task on the event loop. A dead or hung peer is the process's
  // stall watchdog's to catch (BenchSession arms it for --read-timeout; every completed
  // read and write ticks it): no timer runs on the loop while the timed loop does.
  size_t run(Task<size_t> repetition) { return env_.loop.run(std::move(repetition)); }

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
  // none. Reads and writes count for the stall watchdog.
  Counted send(const Message& m) {
    inject_delay(env_.opts.delay_ns);
    return Counted(comm_->write(m));
  }
  Counted recv(Message& m) { return Counted(comm_->read(m)); }
  // An ack says the window has landed, so it waits for stream-ordered reads' copies.
  Counted send_ack() {
    settle();
    return Counted(comm_->write(ack_));
  }
  // Waits until the copies that stream-ordered staged reads (--gpu-read-completion stream)
  // queued on the default stream have landed; nothing otherwise. A timed loop ends with
  // it, as nccl-tests synchronises its stream before it stops the clock, and so does each
  // round trip timed on its own.
  void settle() {
    if (stream_reads_) ops_->synchronize_default();
  }
  Counted recv_ack() { return Counted(comm_->read(ack_in_)); }

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
  bool stream_reads_ = false;  // staged reads complete on the default stream
  Message in_, ack_in_, ack_;
  std::vector<Message> rx_;
  std::byte ack_byte_{1};
};

std::unique_ptr<Driver> make_comm_driver(const BackendSpec& spec, DriverEnv& env);

}  // namespace commbench
