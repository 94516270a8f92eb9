#include "fault/fault_backend.hpp"

#include <stdexcept>

#include "comm/address.hpp"
#include "comm/errors.hpp"
#include "comm/handshake.hpp"
#include "fault/fault_comm.hpp"
#include "runtime/timeout.hpp"

namespace commbench::fault {

namespace {

using namespace std::chrono_literals;
constexpr auto kHandshakeTimeout = 5s;
constexpr std::string_view kPrefix = "fault+";

std::string inner_address(const std::string& address) {
  if (address.rfind(kPrefix, 0) != 0)
    throw AddressError("not a fault address (fault+<scheme>://...): '" + address + "'");
  return address.substr(kPrefix.size());
}

std::string error_type(const std::exception& e) {
  if (dynamic_cast<const ProtocolError*>(&e)) return "ProtocolError";
  if (dynamic_cast<const CommClosedError*>(&e)) return "CommClosedError";
  if (dynamic_cast<const TimeoutError*>(&e)) return "TimeoutError";
  return "other";
}

Message one_frame(std::vector<std::byte>& bytes) {
  return Message({Buffer{bytes.data(), bytes.size(), MemoryKind::host}});
}

Hello decode_hello_message(const Message& m) {
  if (m.frames.size() != 1) throw ProtocolError("hello must be one frame");
  return decode_hello({m.frames[0].bytes(), m.frames[0].size});
}

class FaultListener final : public Listener {
 public:
  FaultListener(EventLoop& loop, std::unique_ptr<Listener> inner, std::shared_ptr<FaultPlan> plan,
                const CommLimits& limits)
      : loop_(loop), inner_(std::move(inner)), plan_(std::move(plan)), limits_(limits) {}

  Task<void> start(CommHandler handler) override {
    handler_ = std::move(handler);
    co_await inner_->start([this](std::unique_ptr<Comm> c) { return serve(std::move(c)); });
  }
  void stop() noexcept override { inner_->stop(); }
  std::string contact_address() const override {
    return std::string(kPrefix) + inner_->contact_address();
  }

 private:
  // The wrapper's hello: read the connector's, answer with ours (unless told to close).
  Task<void> serve(std::unique_ptr<Comm> c) {
    // Shared state: the plan and handler may outlive a stopped listener by a turn.
    auto plan = plan_;
    try {
      Comm& comm = *c;
      co_await with_timeout(loop_, kHandshakeTimeout, [&](CancelToken t) -> Task<void> {
        Message in;
        co_await comm.read(in, t);
        decode_hello_message(in);
        if (plan->close_in_accept) {
          count_fault(*plan);
          comm.abort();
          throw CommClosedError("fault injected: listener closed during handshake");
        }
        auto mine = encode_hello(Hello{kHelloVersion, contact_address(), {}, ""});
        co_await comm.write(one_frame(mine), t);
      });
    } catch (const std::exception& e) {
      ++plan->handshakes_refused;
      plan->last_handshake_error = e.what();
      plan->last_handshake_error_type = error_type(e);
      c->abort();
      co_return;  // as the real listeners do: a failed handshake drops that peer only
    }
    co_await handler_(
        std::make_unique<FaultComm>(loop_, std::move(c), plan, limits_, Side::listener));
  }

  EventLoop& loop_;
  std::unique_ptr<Listener> inner_;
  std::shared_ptr<FaultPlan> plan_;
  CommLimits limits_;
  CommHandler handler_;
};

class FaultConnector final : public Connector {
 public:
  FaultConnector(EventLoop& loop, std::unique_ptr<Connector> inner, std::shared_ptr<FaultPlan> plan,
                 const CommLimits& limits)
      : loop_(loop), inner_(std::move(inner)), plan_(std::move(plan)), limits_(limits) {}

  Task<std::unique_ptr<Comm>> connect(const std::string& address,
                                      std::chrono::nanoseconds timeout) override {
    std::string target = inner_address(address);
    auto start = EventLoop::now_ns();
    std::unique_ptr<Comm> c = co_await inner_->connect(target, timeout);
    auto left = timeout - std::chrono::nanoseconds(EventLoop::now_ns() - start);
    if (left < 1ms) left = 1ms;
    try {
      if (plan_->close_in_connect) {
        count_fault(*plan_);
        c->abort();
        throw CommClosedError("fault injected: connector closed during handshake");
      }
      Comm& comm = *c;
      co_await with_timeout(loop_, left, [&](CancelToken t) -> Task<void> {
        auto mine =
            encode_hello(Hello{kHelloVersion, std::string(kPrefix) + comm.local_address(), {}, ""});
        if (plan_->corrupt_hello) {
          count_fault(*plan_);
          mine[0] ^= std::byte{0xff};
        }
        co_await comm.write(one_frame(mine), t);
        Message in;
        co_await comm.read(in, t);
        decode_hello_message(in);
      });
    } catch (const ProtocolError&) {
      c->abort();
      throw;
    } catch (const std::exception& e) {
      c->abort();
      throw ConnectError("could not connect to " + address + ": handshake failed: " + e.what());
    }
    co_return std::make_unique<FaultComm>(loop_, std::move(c), plan_, limits_, Side::connector);
  }

 private:
  EventLoop& loop_;
  std::unique_ptr<Connector> inner_;
  std::shared_ptr<FaultPlan> plan_;
  CommLimits limits_;
};

class FaultBackend final : public Backend {
 public:
  FaultBackend(EventLoop& loop, std::unique_ptr<Backend> inner, std::shared_ptr<FaultPlan> plan,
               const CommLimits& limits)
      : loop_(loop), inner_(std::move(inner)), plan_(std::move(plan)), limits_(limits) {}
  std::string scheme() const override { return std::string(kPrefix) + inner_->scheme(); }
  std::string progress() const override { return inner_->progress(); }
  std::unique_ptr<Listener> make_listener(const std::string& address) override {
    return std::make_unique<FaultListener>(loop_, inner_->make_listener(inner_address(address)),
                                           plan_, limits_);
  }
  std::unique_ptr<Connector> make_connector() override {
    return std::make_unique<FaultConnector>(loop_, inner_->make_connector(), plan_, limits_);
  }
  std::string default_listen_address(const std::string& host) const override {
    return std::string(kPrefix) + inner_->default_listen_address(host);
  }

 private:
  EventLoop& loop_;
  std::unique_ptr<Backend> inner_;
  std::shared_ptr<FaultPlan> plan_;
  CommLimits limits_;
};

long long extra_int(const BackendOptions& o, const std::string& key, long long fallback) {
  auto it = o.extra.find(key);
  if (it == o.extra.end()) return fallback;
  size_t pos = 0;
  long long v = std::stoll(it->second, &pos);
  if (pos != it->second.size()) throw std::invalid_argument("fault: bad " + key);
  return v;
}

}  // namespace

std::unique_ptr<Backend> make_fault_backend(EventLoop& loop, std::unique_ptr<Backend> inner,
                                            std::shared_ptr<FaultPlan> plan,
                                            const CommLimits& limits) {
  return std::make_unique<FaultBackend>(loop, std::move(inner), std::move(plan), limits);
}

void register_fault_backend(Registry& r) {
  Registry* reg = &r;
  std::vector<PolicyInfo> policies = {
      {"inner", "the wrapped backend's own policy (chosen by inner_progress)"}};
  std::vector<SettingInfo> settings = {
      {"inner", {}, "tcp", "scheme of the wrapped backend"},
      {"inner_progress", {}, "", "progress policy of the wrapped backend"},
      {"read_delay_us", {}, "0", "delay before every read completes"},
      {"write_delay_us", {}, "0", "delay before every write"},
      {"drop_on_write", {}, "-1", "drop the connection on this write (-1 = never)"},
      {"corrupt_on_write", {}, "-1", "corrupt a byte of this write (-1 = never)"}};
  r.add({"fault", policies, settings, [reg](EventLoop& loop, const BackendOptions& o) {
           BackendOptions inner_opts = o;
           inner_opts.progress.clear();
           auto it = o.extra.find("inner_progress");
           if (it != o.extra.end()) inner_opts.progress = it->second;
           auto in = o.extra.find("inner");
           std::string scheme = in == o.extra.end() ? "tcp" : in->second;
           auto plan = std::make_shared<FaultPlan>();
           plan->read_delay = std::chrono::microseconds(extra_int(o, "read_delay_us", 0));
           plan->write_delay = std::chrono::microseconds(extra_int(o, "write_delay_us", 0));
           plan->drop_on_write = static_cast<int>(extra_int(o, "drop_on_write", -1));
           plan->corrupt_on_write = static_cast<int>(extra_int(o, "corrupt_on_write", -1));
           return make_fault_backend(loop, reg->create(scheme, loop, inner_opts), plan, o.limits);
         }});
}

}  // namespace commbench::fault
