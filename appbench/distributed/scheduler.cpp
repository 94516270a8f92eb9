#include "distributed/scheduler.hpp"

#include <sys/resource.h>

#include <algorithm>

#include "comm/errors.hpp"
#include "runtime/timeout.hpp"

namespace commbench::app {

uint64_t process_cpu_ns() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& t) {
    return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000ull +
           static_cast<uint64_t>(t.tv_usec) * 1000ull;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

Scheduler::Scheduler(EventLoop& loop, const Topology& topo,
                     std::chrono::nanoseconds goodbye_timeout)
    : loop_(loop),
      topo_(topo),
      workers_(static_cast<size_t>(topo.workers())),
      all_registered_(loop),
      shutdown_(loop),
      goodbye_timeout_(goodbye_timeout),
      workers_gone_(loop) {
  cpu_at_reset_ns_ = process_cpu_ns();
  stats_reset_ns_ = EventLoop::now_ns();
}

Task<void> Scheduler::serve(std::unique_ptr<Channel> ch, Hello hello) {
  if (hello.role == Role::worker) {
    if (hello.index < 0 || hello.index >= topo_.workers() ||
        workers_[static_cast<size_t>(hello.index)].alive)
      throw ProtocolError("bad worker registration (index " + std::to_string(hello.index) + ")");
    co_await serve_worker(std::move(ch), hello.index);
  } else if (hello.role == Role::client) {
    co_await serve_client(std::move(ch));
  } else {
    throw ProtocolError("the scheduler serves workers and clients only");
  }
}

Task<void> Scheduler::wait_shutdown() {
  co_await shutdown_.wait();
  try {
    co_await with_timeout(loop_, goodbye_timeout_,
                          [&](CancelToken t) -> Task<void> { co_await workers_gone_.wait(t); });
  } catch (const TimeoutError&) {
    // A worker that never hangs up must not hold the job: its own close is bounded too.
  }
}

void Scheduler::worker_hung_up() {
  if (--serving_workers_ == 0 && shutdown_.is_set()) workers_gone_.set();
}

Task<void> Scheduler::serve_worker(std::unique_ptr<Channel> ch, int index) {
  ++serving_workers_;
  WorkerSlot& slot = workers_[static_cast<size_t>(index)];
  slot.ch = std::move(ch);
  slot.alive = true;
  if (++registered_ == topo_.workers()) all_registered_.set();
  Channel& c = *slot.ch;
  Message in;
  std::string why;
  try {
    for (;;) {
      ControlMessage m = co_await c.recv(in);
      if (auto* d = std::get_if<TaskDone>(&m)) {
        co_await on_task_done(index, std::move(*d));
      } else if (auto* f = std::get_if<TaskFailed>(&m)) {
        co_await on_task_failed(index, std::move(*f));
      } else if (auto* r = std::get_if<StatsReply>(&m)) {
        co_await on_stats_reply(std::move(*r));
      } else {
        throw ProtocolError(std::string("unexpected ") + name_of(m) + " from a worker");
      }
    }
  } catch (const CommClosedError& e) {
    why = std::string("connection closed: ") + e.what();
  } catch (const std::exception& e) {
    why = e.what();
  }
  worker_hung_up();                   // nothing more is read from it
  if (shutdown_.is_set()) co_return;  // workers hang up after Shutdown: expected
  c.abort();
  co_await on_worker_lost(index, why);
}

Task<void> Scheduler::serve_client(std::unique_ptr<Channel> ch) {
  co_await all_registered_.wait();
  client_ = ch.get();
  {
    ControlMessage msg = Hello{Role::client, topo_.workers()};
    co_await ch->send(msg);  // "ready": every worker is here
  }
  Message in;
  try {
    for (;;) {
      ControlMessage m = co_await ch->recv(in);
      if (auto* s = std::get_if<Submit>(&m)) {
        co_await on_submit(std::move(*s));
      } else if (auto* r = std::get_if<Release>(&m)) {
        co_await on_release(std::move(*r));
      } else if (auto* q = std::get_if<StatsRequest>(&m)) {
        co_await on_stats_request(*q);
      } else if (std::holds_alternative<Shutdown>(m)) {
        co_await on_shutdown();
      } else {
        throw ProtocolError(std::string("unexpected ") + name_of(m) + " from the client");
      }
    }
  } catch (const std::exception&) {
    // the client left (after Shutdown, or it failed and aborts the job itself)
  }
  client_ = nullptr;
}

Task<void> Scheduler::to_client_encoded(std::vector<std::byte> bytes) {
  if (!client_) co_return;
  try {
    co_await client_->send_encoded(std::move(bytes), {});
  } catch (const std::exception&) {
    client_ = nullptr;
  }
}

Task<void> Scheduler::fail_graph(uint64_t graph, const std::string& error) {
  auto it = graphs_.find(graph);
  if (it != graphs_.end()) {
    if (it->second.failed) co_return;
    it->second.failed = true;
  }
  {
    ControlMessage msg = GraphFailed{graph, error};
    co_await to_client(msg);
  }
}

Task<void> Scheduler::on_submit(Submit s) {
  GraphEntry& g = graphs_[s.graph];
  std::string error;
  std::vector<std::string> added;
  for (auto& t : s.tasks) {
    if (keys_.count(t.key)) {
      error = "key '" + t.key + "' submitted twice";
      break;
    }
    if (!t.deps.empty() && t.worker >= topo_.workers()) {
      error = "task '" + t.key + "' restricted to worker " + std::to_string(t.worker);
      break;
    }
    KeyEntry e;
    e.spec = std::move(t);
    e.graph = s.graph;
    added.push_back(e.spec.key);
    keys_.emplace(e.spec.key, std::move(e));
  }
  if (error.empty()) {
    for (const auto& key : added) {
      KeyEntry& e = keys_[key];
      for (const auto& dep : e.spec.deps) {
        auto d = keys_.find(dep);
        if (d == keys_.end()) {
          error = "task '" + key + "' depends on unknown key '" + dep + "'";
          break;
        }
        if (d->second.state != KeyState::memory) {
          ++e.missing;
          d->second.dependents.push_back(key);
        }
      }
      if (!error.empty()) break;
    }
  }
  if (!error.empty()) {
    for (const auto& key : added) keys_.erase(key);
    graphs_.erase(s.graph);
    {
      ControlMessage msg = GraphFailed{s.graph, error};
      co_await to_client(msg);
    }
    co_return;
  }
  g.keys = added;
  g.remaining = added.size();
  if (g.remaining == 0) {
    graphs_.erase(s.graph);
    {
      ControlMessage msg = GraphDone{s.graph, {}};
      co_await to_client(msg);
    }
    co_return;
  }
  std::vector<std::string> ready;
  for (const auto& key : added)
    if (keys_[key].missing == 0) ready.push_back(key);
  for (const auto& key : ready) co_await assign(key);
}

Task<void> Scheduler::assign(const std::string& key) {
  KeyEntry& e = keys_[key];
  int chosen = -1;
  int W = topo_.workers();
  if (e.spec.worker >= 0) {
    chosen = e.spec.worker % W;
  } else {
    // Dask's rule: the worker that holds the most bytes of the inputs; ties go to the one
    // with fewer tasks in flight, then to the holder of the first dependency.
    std::vector<uint64_t> held(static_cast<size_t>(W), 0);
    for (const auto& dep : e.spec.deps) {
      const KeyEntry& d = keys_[dep];
      if (d.worker >= 0) held[static_cast<size_t>(d.worker)] += d.nbytes + 1;
    }
    int first_holder = e.spec.deps.empty() ? -1 : keys_[e.spec.deps[0]].worker;
    for (int w = 0; w < W; ++w) {
      const WorkerSlot& s = workers_[static_cast<size_t>(w)];
      if (!s.alive) continue;
      if (chosen < 0) {
        chosen = w;
        continue;
      }
      auto hw = held[static_cast<size_t>(w)], hc = held[static_cast<size_t>(chosen)];
      int pw = s.processing, pc = workers_[static_cast<size_t>(chosen)].processing;
      if (hw > hc || (hw == hc && (pw < pc || (pw == pc && w == first_holder)))) chosen = w;
    }
  }
  if (chosen < 0 || !workers_[static_cast<size_t>(chosen)].alive) {
    std::string error = "no live worker for task '" + key + "'";
    co_await fail_graph(e.graph, error);
    co_return;
  }
  e.state = KeyState::processing;
  e.worker = chosen;
  Compute c{key, e.spec.func, e.spec.args, {}};
  for (const auto& dep : e.spec.deps) c.deps.push_back({dep, keys_[dep].worker});
  WorkerSlot& slot = workers_[static_cast<size_t>(chosen)];
  ++slot.processing;
  try {
    co_await slot.ch->send(c);
  } catch (const std::exception&) {
    // the worker's reader sees the same failure and reports the lost worker
  }
}

Task<void> Scheduler::on_task_done(int worker, TaskDone d) {
  auto it = keys_.find(d.key);
  if (it == keys_.end()) co_return;
  KeyEntry& e = it->second;
  e.state = KeyState::memory;
  e.worker = worker;
  e.nbytes = d.nbytes;
  --workers_[static_cast<size_t>(worker)].processing;
  std::vector<std::string> ready;
  for (const auto& dep : e.dependents) {
    auto di = keys_.find(dep);
    if (di != keys_.end() && --di->second.missing == 0) ready.push_back(dep);
  }
  e.dependents.clear();
  uint64_t graph = e.graph;
  for (const auto& key : ready) co_await assign(key);
  auto g = graphs_.find(graph);
  if (g == graphs_.end() || --g->second.remaining > 0) co_return;
  GraphDone done{graph, {}};
  bool failed = g->second.failed;
  for (const auto& key : g->second.keys) {
    const KeyEntry& k = keys_[key];
    done.results.push_back({key, k.worker, k.nbytes});
  }
  graphs_.erase(g);
  if (!failed) co_await to_client(done);
}

Task<void> Scheduler::on_task_failed(int worker, TaskFailed f) {
  auto it = keys_.find(f.key);
  uint64_t graph = it == keys_.end() ? 0 : it->second.graph;
  // A peer's broken connection is that peer's loss, whoever noticed it first: name it as
  // on_worker_lost does (the lost worker's own connection may break a moment later).
  std::string error =
      f.lost_worker >= 0 && f.lost_worker < topo_.workers()
          ? "lost " + topo_.describe_worker(f.lost_worker) + ", seen by task '" + f.key + "' on " +
                topo_.describe_worker(worker) + ": " + f.error
          : "task '" + f.key + "' failed on " + topo_.describe_worker(worker) + ": " + f.error;
  co_await fail_graph(graph, error);
}

Task<void> Scheduler::on_release(Release r) {
  std::vector<Release> per_worker(workers_.size());
  for (auto& key : r.keys) {
    auto it = keys_.find(key);
    if (it == keys_.end()) continue;
    if (it->second.state == KeyState::memory && it->second.worker >= 0)
      per_worker[static_cast<size_t>(it->second.worker)].keys.push_back(key);
    keys_.erase(it);
  }
  for (size_t w = 0; w < workers_.size(); ++w) {
    if (per_worker[w].keys.empty() || !workers_[w].alive) continue;
    try {
      co_await workers_[w].ch->send(per_worker[w]);
    } catch (const std::exception&) {
    }
  }
}

Task<void> Scheduler::on_stats_request(StatsRequest r) {
  stats_id_ = r.id;
  stats_ = StatsReply{r.id, {}};
  uint64_t cpu = process_cpu_ns();
  WorkerStats mine;  // worker -1: the scheduler's own rank
  mine.cpu_ns = cpu - cpu_at_reset_ns_;
  cpu_at_reset_ns_ = cpu;
  stats_.workers.push_back(mine);
  stats_waiting_ = 0;
  for (auto& w : workers_)
    if (w.alive) ++stats_waiting_;
  if (stats_waiting_ == 0) {
    co_await to_client(stats_);
    co_return;
  }
  for (auto& w : workers_) {
    if (!w.alive) continue;
    try {
      {
        ControlMessage msg = StatsRequest{r.id};
        co_await w.ch->send(msg);
      }
    } catch (const std::exception&) {
    }
  }
}

Task<void> Scheduler::on_stats_reply(StatsReply r) {
  if (r.id != stats_id_ || stats_waiting_ == 0) co_return;
  for (auto& w : r.workers) stats_.workers.push_back(std::move(w));
  if (--stats_waiting_ == 0) co_await to_client(stats_);
}

Task<void> Scheduler::on_worker_lost(int worker, const std::string& why) {
  WorkerSlot& slot = workers_[static_cast<size_t>(worker)];
  slot.alive = false;
  std::string error = "lost " + topo_.describe_worker(worker) + ": " + why;
  // Every pending graph fails; with none pending the client still hears of it at once
  // (graph 0), so a wait of any kind ends instead of hanging.
  std::vector<uint64_t> pending;
  for (auto& [id, g] : graphs_)
    if (!g.failed) pending.push_back(id);
  if (pending.empty()) pending.push_back(0);
  for (uint64_t id : pending) co_await fail_graph(id, error);
}

Task<void> Scheduler::on_shutdown() {
  shutdown_.set();
  if (serving_workers_ == 0) workers_gone_.set();
  for (auto& w : workers_) {
    if (!w.alive) continue;
    try {
      {
        ControlMessage msg = Shutdown{};
        co_await w.ch->send(msg);
      }
    } catch (const std::exception&) {
    }
  }
}

}  // namespace commbench::app
