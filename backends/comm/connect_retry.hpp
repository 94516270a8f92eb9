// Connect-with-retry, shared by every backend's Connector: a listener that is not up yet
// (a worker started before its scheduler, a rank that opens its service a moment later)
// or one that drops a handshake is tried again until the connect timeout, with one
// back-off for all transports, and the timeout names the last reason an attempt failed.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "comm/comm.hpp"
#include "runtime/cancel.hpp"
#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"

namespace commbench {

// The pause before each retry: 1 ms, doubling, at most 100 ms. A listener about to start
// is usually there within milliseconds, so the first retries come quickly; the cap finds
// a late one within a tenth of a second, while an attempt (a socket connect, a UCX
// endpoint, an MPI control message) costs microseconds, so ten a second is no load.
class ConnectBackoff {
 public:
  static constexpr std::chrono::milliseconds kFirst{1};
  static constexpr std::chrono::milliseconds kMax{100};

  // The pause to take now; the next one is twice as long, up to kMax.
  std::chrono::milliseconds next() noexcept {
    auto d = delay_;
    delay_ = std::min(delay_ * 2, kMax);
    return d;
  }

 private:
  std::chrono::milliseconds delay_ = kFirst;
};

// One attempt. Returns the comm, or nullptr after writing into `why` what went wrong
// this time (refused, no listener yet, handshake dropped): worth another try. Throws for
// what retrying cannot fix (a bad address, a peer that is not commbench). Every wait
// inside takes `token`, which the deadline cancels. Callers pass a lambda that captures
// by reference (what it refers to lives in their frame while they await): GCC 12 destroys
// a lambda temporary whose captures have destructors twice when it sits in a co_await
// expression (a double free; seen with a HostPort captured by value).
using ConnectAttempt =
    std::function<Task<std::unique_ptr<Comm>>(CancelToken token, std::string& why)>;

// Runs `attempt` until it returns a comm, pausing by ConnectBackoff between attempts, for
// at most `timeout`. Past it throws ConnectError("could not connect to <address> within
// <ms> ms: <why>"), `why` being the last attempt's reason, or `none_finished` while the
// first attempt was still under way.
Task<std::unique_ptr<Comm>> connect_with_retry(EventLoop& loop, std::string address,
                                               std::chrono::nanoseconds timeout,
                                               ConnectAttempt attempt,
                                               std::string none_finished = "no attempt finished");

}  // namespace commbench
