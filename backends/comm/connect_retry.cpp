#include "comm/connect_retry.hpp"

#include "comm/errors.hpp"
#include "runtime/timeout.hpp"

namespace commbench {

namespace {

Task<std::unique_ptr<Comm>> retry(EventLoop& loop, const ConnectAttempt& attempt, CancelToken token,
                                  std::string& why) {
  ConnectBackoff backoff;
  for (;;) {
    if (auto comm = co_await attempt(token, why)) co_return comm;
    co_await loop.sleep_for(backoff.next(), token);
  }
}

}  // namespace

Task<std::unique_ptr<Comm>> connect_with_retry(EventLoop& loop, std::string address,
                                               std::chrono::nanoseconds timeout,
                                               ConnectAttempt attempt, std::string none_finished) {
  std::string why = std::move(none_finished);
  try {
    co_return co_await with_timeout(loop, timeout,
                                    [&](CancelToken t) { return retry(loop, attempt, t, why); });
  } catch (const TimeoutError&) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
    throw ConnectError("could not connect to " + address + " within " + std::to_string(ms) +
                       " ms: " + why);
  }
}

}  // namespace commbench
