#include "distributed/worker.hpp"

#include <unistd.h>

#include <cstdio>

#include "comm/errors.hpp"
#include "distributed/scheduler.hpp"
#include "harness/inject_delay.hpp"
#include "runtime/spawn.hpp"
#include "runtime/when_all.hpp"

namespace commbench::app {

Worker::Worker(ChannelSet& channels, const Topology& topo, Backend& backend,
               const FunctionTable& fns, WorkerOptions opts)
    : channels_(channels),
      topo_(topo),
      index_(topo.worker_index()),
      backend_(backend),
      fns_(fns),
      opts_(opts),
      fetch_slots_(channels.loop(), std::max<size_t>(1, opts.fetch_concurrency)),
      work_(channels.loop()) {
  stats_reset_ns_ = EventLoop::now_ns();
  cpu_at_reset_ns_ = process_cpu_ns();
}

Worker::~Worker() = default;

Task<void> Worker::run() {
  connector_ = backend_.make_connector();
  pool_ = std::make_unique<ConnectionPool>(channels_, *connector_, Hello{Role::peer, index_},
                                           opts_.connect_timeout);
  const std::string& at = topo_.addresses[static_cast<size_t>(topo_.scheduler_rank())];
  scheduler_ =
      std::make_unique<Channel>(channels_, co_await connector_->connect(at, opts_.connect_timeout));
  {
    ControlMessage msg = Hello{Role::worker, index_};
    co_await scheduler_->send(msg);
  }
  co_await when_all(message_loop(), executor());
}

Task<void> Worker::message_loop() {
  Message in;
  try {
    for (;;) {
      ControlMessage m = co_await scheduler_->recv(in);
      if (auto* c = std::get_if<Compute>(&m)) {
        on_compute(std::move(*c));
      } else if (auto* r = std::get_if<Release>(&m)) {
        on_release(*r);
      } else if (auto* s = std::get_if<StatsRequest>(&m)) {
        StatsReply reply = take_stats(s->id);
        co_await report(reply);
      } else if (std::holds_alternative<Shutdown>(m)) {
        break;
      } else {
        throw ProtocolError(std::string("unexpected ") + name_of(m) + " from the scheduler");
      }
    }
  } catch (const std::exception& e) {
    stopping_ = true;
    work_.set();
    throw CommError("worker " + std::to_string(index_) + " lost the scheduler (" +
                    scheduler_->peer() + "): " + e.what());
  }
  stopping_ = true;
  work_.set();
  co_await scheduler_->comm().close();
}

void Worker::on_compute(Compute c) {
  if (opts_.die_at_task != 0 && ++computes_received_ == opts_.die_at_task) {
    std::fprintf(stderr,
                 "worker %d (rank %d): dying on purpose at task %llu (--test-kill-worker)\n",
                 index_, topo_.rank, static_cast<unsigned long long>(opts_.die_at_task));
    std::fflush(stderr);
    ::_exit(17);  // like a crash: no goodbye, the kernel resets our connections
  }
  auto p = std::make_shared<Pending>();
  p->task = std::move(c);
  for (const auto& dep : p->task.deps) {
    if (data_.count(dep.key)) continue;
    if (auto f = fetched_.find(dep.key); f != fetched_.end()) {
      ++f->second.users;
      continue;
    }
    ++p->missing;
    auto& waiters = fetching_[dep.key];
    bool start = waiters.empty();
    waiters.push_back(p);
    if (start) spawn(channels_.loop(), fetch(dep.key, dep.worker));
  }
  if (p->missing == 0) {
    ready_.push_back(std::move(p));
    work_.set();
  } else {
    p->held = true;
    wait_clock_.block(EventLoop::now_ns());
  }
}

void Worker::release_hold(Pending& p) {
  if (!p.held) return;
  p.held = false;
  wait_clock_.unblock(EventLoop::now_ns());
}

void Worker::on_release(const Release& r) {
  for (const auto& key : r.keys) data_.erase(key);
}

StatsReply Worker::take_stats(uint64_t id) {
  WorkerStats s;
  s.worker = index_;
  s.tasks = tasks_;
  s.task_ns = task_ns_;
  uint64_t cpu = process_cpu_ns();
  s.cpu_ns = cpu - cpu_at_reset_ns_;
  s.wait_ns = wait_clock_.take(EventLoop::now_ns());
  s.transfers = std::move(transfers_);
  transfers_.clear();
  tasks_ = task_ns_ = 0;
  cpu_at_reset_ns_ = cpu;
  stats_reset_ns_ = EventLoop::now_ns();
  return StatsReply{id, {std::move(s)}};
}

Task<void> Worker::fetch(std::string key, int holder) {
  co_await fetch_slots_.acquire();
  SemaphoreGuard guard(fetch_slots_);
  const std::string& address = topo_.worker_address(holder);
  auto msg = std::make_shared<Message>();
  std::string error;
  bool lost = false;  // the holder is gone (vs. a refusal or a bad reply)
  try {
    uint64_t t0 = EventLoop::now_ns();
    auto ch = co_await pool_->acquire(address);
    GetData req;  // built outside co_await: GCC 12 mishandles init-lists there
    req.keys.push_back(key);
    co_await ch->send(req);
    ControlMessage reply = co_await ch->recv(*msg);
    uint64_t t1 = EventLoop::now_ns();
    pool_->release(address, std::move(ch));
    if (auto* miss = std::get_if<DataMissing>(&reply)) throw std::runtime_error(miss->error);
    Data d = expect<Data>(std::move(reply), "reply to GetData");
    if (d.keys.size() != 1 || d.parts.size() != 1 || msg->frames.size() != 1 + d.parts[0])
      throw ProtocolError("reply to GetData does not match the request");
    Value v;
    for (size_t i = 1; i < msg->frames.size(); ++i) v.parts.push_back(msg->frames[i]);
    v.owner = msg;  // the received frames stay where they landed: no copy
    if (opts_.corrupt_every != 0 && ++fetches_done_ % opts_.corrupt_every == 0)
      for (auto& part : v.parts)
        if (part.size > 0 && part.kind == MemoryKind::host) {  // device bytes: not from here
          part.bytes()[part.size / 2] ^= std::byte{0x5a};
          break;
        }
    transfers_.push_back(TransferRecord{holder, index_, key, v.nbytes(),
                                        t0 - std::min(t0, stats_reset_ns_), t1 - t0});
    auto waiters = std::move(fetching_[key]);
    fetching_.erase(key);
    fetched_[key] = Fetched{std::move(v), static_cast<int>(waiters.size())};
    for (auto& w : waiters)
      if (--w->missing == 0) {
        release_hold(*w);
        ready_.push_back(w);
        work_.set();
      }
    co_return;
  } catch (const std::exception& e) {
    error = e.what();
    lost = peer_is_gone(e);
  }
  auto waiters = std::move(fetching_[key]);
  fetching_.erase(key);
  std::string why = fetch_error(key, holder, error);
  for (auto& w : waiters) release_hold(*w);  // failed, not waiting: not wait time
  for (auto& w : waiters) {
    ControlMessage msg = TaskFailed{w->task.key, why, lost ? holder : -1};
    co_await report(msg);
  }
}

std::string Worker::fetch_error(const std::string& key, int holder,
                                const std::string& error) const {
  return "fetching '" + key + "' from " + topo_.describe_worker(holder) + " failed: " + error;
}

const Value* Worker::find(const std::string& key) const {
  if (auto it = data_.find(key); it != data_.end()) return &it->second;
  if (auto it = fetched_.find(key); it != fetched_.end()) return &it->second.value;
  return nullptr;
}

Task<void> Worker::executor() {
  for (;;) {
    while (ready_.empty()) {
      if (stopping_) co_return;
      work_.reset();
      wait_clock_.set_idle(true, EventLoop::now_ns());
      co_await work_.wait();
      wait_clock_.set_idle(false, EventLoop::now_ns());
    }
    if (stopping_) co_return;
    auto p = std::move(ready_.front());
    ready_.pop_front();
    co_await run_task(std::move(p));
  }
}

Task<void> Worker::run_task(std::shared_ptr<Pending> p) {
  const Compute& c = p->task;
  std::string error;
  uint64_t nbytes = 0;
  try {
    std::vector<const Value*> inputs;
    for (const auto& dep : c.deps) {
      const Value* v = find(dep.key);
      if (!v) throw std::logic_error("input '" + dep.key + "' vanished");
      inputs.push_back(v);
    }
    const TaskFunction& fn = fns_.get(c.func);
    TaskContext ctx(channels_.loop(), opts_.slice_ns);
    uint64_t t0 = EventLoop::now_ns();
    Value out = co_await fn(ctx, inputs, c.args);
    task_ns_ += EventLoop::now_ns() - t0;
    ++tasks_;
    nbytes = out.nbytes();
    data_[c.key] = std::move(out);
  } catch (const std::exception& e) {
    error = e.what();
  }
  for (const auto& dep : c.deps)  // copies of peers' data live while a task needs them
    if (auto f = fetched_.find(dep.key); f != fetched_.end() && --f->second.users <= 0)
      fetched_.erase(f);
  if (error.empty()) {
    ControlMessage msg = TaskDone{c.key, nbytes};
    co_await report(msg);
  } else {
    ControlMessage msg = TaskFailed{c.key, error};
    co_await report(msg);
  }
}

Task<void> Worker::report_encoded(std::vector<std::byte> bytes) {
  try {
    co_await scheduler_->send_encoded(std::move(bytes), {});
  } catch (const std::exception&) {
    // the message loop sees the same failure and ends the worker with its reason
  }
}

Task<void> Worker::serve_data(std::unique_ptr<Channel> ch, Hello hello) {
  // Only worker-to-worker writes: the client's untimed gathers are not comm time.
  uint64_t delay_ns = hello.role == Role::peer ? opts_.inject_delay_ns : 0;
  Message in;
  try {
    for (;;) {
      ControlMessage m = co_await ch->recv(in);
      GetData req = expect<GetData>(std::move(m), "data request");
      std::vector<Value> values;  // holds the owners while the frames are on the wire
      Data head;
      std::string missing;
      for (const auto& key : req.keys) {
        const Value* v = find(key);
        if (!v) {
          missing = key;
          break;
        }
        values.push_back(*v);
        head.keys.push_back(key);
        head.parts.push_back(static_cast<uint32_t>(v->parts.size()));
      }
      if (!missing.empty()) {
        {
          ControlMessage msg =
              DataMissing{"worker " + std::to_string(index_) + " does not hold '" + missing + "'"};
          co_await ch->send(msg);
        }
        continue;
      }
      std::vector<Buffer> bulk;
      for (const auto& v : values)
        for (const auto& part : v.parts) bulk.push_back(part);
      inject_delay(delay_ns);
      co_await ch->send(head, bulk);
    }
  } catch (const CommClosedError&) {
    // the requester closed its pooled connection: normal at the end
  }
}

}  // namespace commbench::app
