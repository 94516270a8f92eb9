// What every raw baseline shares: its buffers, and the primitives a benchmark's loop
// calls on it. The loops are templates over the concrete driver (RawTcpDriver, ...):
// each primitive is a non-virtual, inline member, so a raw timed loop compiles to the
// library calls themselves, as if written for that library alone.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <vector>

#include "drivers/driver.hpp"
#include "drivers/raw_driver_list.hpp"
#include "drivers/window_buffers.hpp"
#include "harness/raw_baselines.hpp"

namespace commbench {

class RawDriver : public Driver {
 public:
  // `variant`: one of the baseline's variants (make_driver checked the name).
  RawDriver(const RawBaseline& baseline, const RawVariant& variant, DriverEnv& env)
      : Driver(env), baseline_(baseline), variant_(variant) {}
  std::string backend() const override { return baseline_.name; }
  std::string progress() const override { return variant_.name; }

  void prepare(size_t max_size) override {
    send_.assign(std::max<size_t>(max_size, 1), std::byte{0});
    recv_.assign(std::max<size_t>(max_size, 1), std::byte{0});
  }

  std::byte* send_buffer() { return send_.data(); }
  std::byte* recv_buffer() { return recv_.data(); }
  // A bandwidth window's receive buffers: prepare them for each window's size, index
  // them by the message's place in its batch.
  WindowBuffers& window_buffers() { return rx_; }
  // OSU's one buffer for a whole window (--recv-buffers shared); never when validating,
  // where every message must be checked in a buffer of its own.
  bool shared_window_buffer(bool validate) const {
    return env_.opts.shared_recv_buffer && !validate;
  }

 private:
  const RawBaseline& baseline_;
  const RawVariant& variant_;
  std::vector<std::byte> send_, recv_;
  WindowBuffers rx_;
};

// The primitives of a raw baseline. Blocking send/recv serve the ping-pong (one message
// each way, as the library's own latency test does it); the windowed bandwidth posts
// sends and receives and then waits for all that were posted, as the library's bandwidth
// test does. The ack is a 1-byte message apart from the data (its own tag where the
// library has tags). kEmptyMessages: whether a 0-byte message can be measured at all.
template <typename T>
concept RawTransport = std::derived_from<T, RawDriver> &&
    requires(T t, const std::byte* out, std::byte* in, size_t n) {
  { T::kEmptyMessages } -> std::convertible_to<bool>;
  t.send(out, n);
  t.recv(in, n);
  t.send_ack();
  t.recv_ack();
  t.post_send(out, n);
  t.post_recv(in, n);
  t.wait_sends();
  t.wait_recvs();
};

}  // namespace commbench
