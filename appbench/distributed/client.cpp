#include "distributed/client.hpp"

#include "comm/errors.hpp"
#include "runtime/timeout.hpp"
#include "runtime/when_all.hpp"

namespace commbench::app {

Client::Client(ChannelSet& channels, const Topology& topo, Backend& backend,
               std::chrono::nanoseconds connect_timeout)
    : channels_(channels),
      topo_(topo),
      timeout_(connect_timeout),
      connector_(backend.make_connector()) {
  pool_ =
      std::make_unique<ConnectionPool>(channels_, *connector_, Hello{Role::client, -1}, timeout_);
}

Task<void> Client::connect() {
  const std::string& at = topo_.addresses[static_cast<size_t>(topo_.scheduler_rank())];
  scheduler_ = std::make_unique<Channel>(channels_, co_await connector_->connect(at, timeout_));
  {
    ControlMessage msg = Hello{Role::client, -1};
    co_await scheduler_->send(msg);
  }
  try {
    Hello ready =
        co_await with_timeout(channels_.loop(), timeout_, [&](CancelToken t) -> Task<Hello> {
          co_return expect<Hello>(co_await scheduler_->recv(in_, t), "scheduler handshake");
        });
    if (ready.index != topo_.workers())
      throw ClientError("scheduler reports " + std::to_string(ready.index) + " workers, expected " +
                        std::to_string(topo_.workers()));
  } catch (const TimeoutError&) {
    throw ClientError("not every worker registered with the scheduler within the connect timeout");
  }
}

Task<ControlMessage> Client::await_reply() {
  ControlMessage m;
  try {
    m = co_await scheduler_->recv(in_);
  } catch (const CommError& e) {
    throw ClientError(std::string("lost the scheduler: ") + e.what());
  }
  if (auto* f = std::get_if<GraphFailed>(&m)) throw ClientError(f->error);
  co_return m;
}

Task<std::vector<KeyInfo>> Client::compute(std::vector<TaskSpec> tasks) {
  uint64_t id = next_id_++;
  {
    ControlMessage msg = Submit{id, std::move(tasks)};
    co_await scheduler_->send(msg);
  }
  for (;;) {
    ControlMessage m = co_await await_reply();
    if (auto* d = std::get_if<GraphDone>(&m); d && d->graph == id) co_return std::move(d->results);
    throw ClientError(std::string("unexpected ") + name_of(m) + " while waiting for a graph");
  }
}

Task<Value> Client::gather_one(KeyInfo key) {
  const std::string& address = topo_.worker_address(key.worker);
  GetData req;  // built outside co_await: GCC 12 mishandles init-lists there
  req.keys.push_back(key.key);
  auto msg = std::make_shared<Message>();
  ControlMessage reply;
  try {
    auto ch = co_await pool_->acquire(address);
    co_await ch->send(req);
    reply = co_await ch->recv(*msg);
    pool_->release(address, std::move(ch));
  } catch (const std::exception& e) {
    if (!peer_is_gone(e)) throw;
    // The worker holding the key is gone (or unreachable): say which, as the scheduler
    // does when it notices first.
    throw ClientError("lost " + topo_.describe_worker(key.worker) + " while gathering '" + key.key +
                      "': " + e.what());
  }
  if (auto* miss = std::get_if<DataMissing>(&reply)) throw ClientError(miss->error);
  Data d = expect<Data>(std::move(reply), "reply to GetData");
  if (d.parts.size() != 1 || msg->frames.size() != 1 + d.parts[0])
    throw ProtocolError("reply to GetData does not match the request");
  Value v;
  for (size_t i = 1; i < msg->frames.size(); ++i) v.parts.push_back(msg->frames[i]);
  v.owner = msg;
  co_return v;
}

Task<std::vector<Value>> Client::gather(const std::vector<KeyInfo>& keys) {
  std::vector<Value> out(keys.size());
  std::vector<Task<void>> parts;
  for (size_t i = 0; i < keys.size(); ++i)
    parts.push_back([](Client* self, KeyInfo k, Value* slot) -> Task<void> {
      *slot = co_await self->gather_one(std::move(k));
    }(this, keys[i], &out[i]));
  try {
    co_await when_all(std::move(parts));
  } catch (const ClientError&) {
    throw;
  } catch (const std::exception& e) {
    throw ClientError(std::string("gathering results failed: ") + e.what());
  }
  co_return out;
}

Task<void> Client::release(std::vector<std::string> keys) {
  {
    ControlMessage msg = Release{std::move(keys)};
    co_await scheduler_->send(msg);
  }
}

Task<std::vector<WorkerStats>> Client::stats() {
  uint64_t id = next_id_++;
  {
    ControlMessage msg = StatsRequest{id};
    co_await scheduler_->send(msg);
  }
  for (;;) {
    ControlMessage m = co_await await_reply();
    if (auto* r = std::get_if<StatsReply>(&m); r && r->id == id) co_return std::move(r->workers);
    throw ClientError(std::string("unexpected ") + name_of(m) + " while waiting for stats");
  }
}

Task<void> Client::shutdown() {
  {
    ControlMessage msg = Shutdown{};
    co_await scheduler_->send(msg);
  }
  co_await scheduler_->comm().close();
}

}  // namespace commbench::app
