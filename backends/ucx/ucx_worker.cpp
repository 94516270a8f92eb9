#include "ucx/ucx_worker.hpp"

#include <poll.h>

#include <atomic>
#include <cstdlib>
#include <utility>

#include "comm/errors.hpp"
#include "steering/library_steering.hpp"
#include "ucx/ucx_fd_limit.hpp"

namespace commbench::ucx {

// --- the worker ---------------------------------------------------------------------------

Worker::Worker(EventLoop& loop, Progress p, DataErrMode mode)
    : loop_(loop), policy_(p), data_mode_(mode) {
  ucp_config_t* config = nullptr;
  // UCX_* environment variables (UCX_TLS, UCX_RNDV_THRESH...) apply here, so the
  // steering (UCX_NET_DEVICES) must be in place first; a no-op after the harness did it.
  steer_libraries("");
  // Before the worker's async context exists: more connections than 1,024 event handlers.
  size_async_events();
  ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
  if (s != UCS_OK) throw CommError(status_message("ucp_config_read", s));
  const bool threaded = p == Progress::thread || p == Progress::thread_blocking;
  // Two threads share a threaded worker, and UCX guards it with a spinlock unless told
  // otherwise. On a full machine the loop's thread then spun for a whole time slice
  // whenever the progress thread was preempted holding the lock (1 B ping-pong p50
  // 2 ms); with a mutex the waiter sleeps (p50 5-7 us, same run conditions). A user's
  // own UCX_USE_MT_MUTEX wins.
  if (threaded && std::getenv("UCX_USE_MT_MUTEX") == nullptr) {
    s = ucp_config_modify(config, "USE_MT_MUTEX", "y");
    if (s != UCS_OK) {
      ucp_config_release(config);
      throw CommError(status_message("ucp_config_modify(USE_MT_MUTEX)", s));
    }
  }
  // A peer that dies while this process reads from it with CMA (process_vm_readv, UCX's
  // rendezvous on one host) aborts this process in UCX 1.13 unless the endpoint has peer
  // error handling, and with it UCX 1.13 uses neither CMA nor shared memory
  // (ucx_err_mode.hpp). So by default the data worker leaves CMA out and keeps shared
  // memory; the user's own UCX_TLS wins (--backend-opt ucx_err_handling=none keeps CMA).
  // Without CMA, UCX 1.13 fills the rendezvous lanes (rma_bw) with TCP, to the same
  // process on one host too: two more sockets per endpoint (14 descriptors per
  // in-process connection instead of 6) and large messages over loopback TCP. No
  // rendezvous lanes (MAX_RNDV_LANES=0) sends them through the active-message lane
  // instead, shared memory on one host, unless the user set UCX_MAX_RNDV_LANES.
  if (p != Progress::control && mode == DataErrMode::nocma && std::getenv("UCX_TLS") == nullptr) {
    const char* settings[][2] = {{"TLS", "^cma"}, {"MAX_RNDV_LANES", "0"}};
    for (auto& [name, value] : settings) {
      if (std::string(name) == "MAX_RNDV_LANES" && std::getenv("UCX_MAX_RNDV_LANES")) continue;
      s = ucp_config_modify(config, name, value);
      if (s != UCS_OK) {
        ucp_config_release(config);
        throw CommError(status_message(std::string("ucp_config_modify(") + name + ")", s));
      }
    }
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  // Data workers carry tag messages. The control worker carries the handshake on the
  // stream API (stream data belongs to one endpoint; a tag message could come from any
  // endpoint of the worker) and sleeps on its event fd.
  if (p == Progress::control)
    params.features = UCP_FEATURE_STREAM | UCP_FEATURE_WAKEUP;
  else
    params.features = UCP_FEATURE_TAG;
  if (p == Progress::event || p == Progress::thread_blocking) params.features |= UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 0;
  s = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (s != UCS_OK) throw CommError(status_message("ucp_init", s));
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  // The thread policies post from the loop's thread while the progress thread
  // progresses: UCP must lock the worker (part of what they cost).
  wp.thread_mode = threaded ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
  s = ucp_worker_create(context_, &wp, &worker_);
  if (s != UCS_OK) {
    ucp_cleanup(context_);
    throw CommError(status_message("ucp_worker_create", s));
  }
  if (threaded) {
    ucp_worker_attr_t attr{};
    attr.field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE;
    s = ucp_worker_query(worker_, &attr);
    if (s != UCS_OK || attr.thread_mode != UCS_THREAD_MODE_MULTI) {
      ucp_worker_destroy(worker_);
      ucp_cleanup(context_);
      throw CommError("ucx:" + std::string(to_string(p)) +
                      ": this UCX build gives no multi-threaded worker (UCS_THREAD_MODE_MULTI)");
    }
  }
  ucp_address_t* addr = nullptr;
  size_t addr_len = 0;
  s = ucp_worker_get_address(worker_, &addr, &addr_len);
  if (s != UCS_OK) {
    ucp_worker_destroy(worker_);
    ucp_cleanup(context_);
    throw CommError(status_message("ucp_worker_get_address", s));
  }
  auto* a = reinterpret_cast<const std::byte*>(addr);
  address_.assign(a, a + addr_len);
  ucp_worker_release_address(worker_, addr);
  if (p == Progress::event || p == Progress::control || p == Progress::thread_blocking) {
    s = ucp_worker_get_efd(worker_, &efd_);
    if (s != UCS_OK) {
      ucp_worker_destroy(worker_);
      ucp_cleanup(context_);
      throw CommError(status_message("ucp_worker_get_efd (event progress)", s));
    }
  }
  if (threaded) start_thread();
  if (p != Progress::cooperative) {
    engine_ = std::make_unique<WorkerEngine>(*this);
    loop_.add_poller(engine_.get());
  }
}

void Worker::start_thread() {
  handoff_ = std::make_unique<Handoff>(loop_, "ucx-handoff");
  ProgressThread::Hooks hooks;
  hooks.step = [this] {
    // Requests posted before this load are progressed by this step (see posted()).
    progressed_posts_ = posts_.load(std::memory_order_seq_cst);
    std::lock_guard<std::mutex> lock(step_mutex_);
    return ucp_worker_progress(worker_) != 0;
  };
  hooks.owed = [h = handoff_.get()] { return h->pending(); };
  if (policy_ == Progress::thread_blocking) {
    hooks.sleep = [this](int stop_fd) {
      // BUSY: events arrived since the last progress; progress again instead.
      if (ucp_worker_arm(worker_) != UCS_OK) return;
      // A request posted after the last step began was either seen here (progress it
      // first) or its poster saw us asleep and signalled the worker (a Dekker pair with
      // posted(): we stored `asleep` before this load, it counted before its load).
      if (posts_.load(std::memory_order_seq_cst) != progressed_posts_) return;
      pollfd fds[2] = {{efd_, POLLIN, 0}, {stop_fd, POLLIN, 0}};
      ::poll(fds, 2, -1);
    };
  }
  thread_ = std::make_unique<ProgressThread>("ucx-progress", std::move(hooks));
}

void Worker::cancel(void* request) noexcept {
  std::lock_guard<std::mutex> lock(step_mutex_);  // uncontended without a progress thread
  ucp_request_cancel(worker_, request);
}

Worker::~Worker() {
  // The progress thread goes first: from here on this thread alone touches the worker.
  if (thread_) thread_->stop();
  if (engine_) loop_.remove_poller(engine_.get());
  // Finish endpoint closes (bounded: a dead peer must not hold the process).
  uint64_t deadline = EventLoop::now_ns() + 1'000'000'000ull;
  while (!closing_.empty() && EventLoop::now_ns() < deadline) {
    ucp_worker_progress(worker_);
    housekeeping();
  }
  for (auto& c : closing_) {
    cancel(c.request);
    ucp_request_free(c.request);
  }
  closing_.clear();
  if (policy_ != Progress::control) discard_unexpected();
  ucp_worker_destroy(worker_);
  ucp_cleanup(context_);
}

void Worker::discard_unexpected() noexcept {
  // Messages nobody read (a peer's last writes to a comm closed without reading them)
  // sit in the unexpected queue; ucp_worker_destroy would warn about each. Receive them
  // into a scratch buffer instead (bounded: a peer still sending must not hold us).
  std::vector<std::byte> scratch;
  for (int n = 0; n < 100000; ++n) {
    ucp_worker_progress(worker_);
    ucp_tag_recv_info_t info{};
    ucp_tag_message_h msg = ucp_tag_probe_nb(worker_, 0, 0, 1, &info);
    if (msg == nullptr) break;
    if (scratch.size() < info.length) scratch.resize(info.length);
    auto op = std::make_unique<Op>();
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv = &Op::on_tag_recv;
    p.user_data = op.get();
    void* r = ucp_tag_msg_recv_nbx(worker_, scratch.data(), info.length, msg, &p);
    if (r == nullptr || UCS_PTR_IS_ERR(r)) continue;
    uint64_t deadline = EventLoop::now_ns() + 100'000'000ull;
    while (!op->done && EventLoop::now_ns() < deadline) ucp_worker_progress(worker_);
    if (!op->done) cancel(r);
    for (int i = 0; i < 1000 && !op->done; ++i) ucp_worker_progress(worker_);
    if (!op->done) {
      (void)op.release();  // its callback may still run in ucp_worker_destroy
      return;
    }
    ucp_request_free(r);
  }
}

void Worker::adopt_close(void* request, std::shared_ptr<EndpointState> state) {
  if (request == nullptr || UCS_PTR_IS_ERR(request)) return;
  closing_.push_back({request, std::move(state)});
}

void Worker::endpoint_failed(std::shared_ptr<EndpointState> state) {
  failed_.push_back(std::move(state));
}

void Worker::housekeeping() {
  while (!failed_.empty()) {
    auto batch = std::move(failed_);
    failed_.clear();
    for (auto& st : batch) {
      if (st->closing || st->failed) continue;
      st->failed = true;
      // What the dead peer sent before it went is in our queues already or on its way
      // through shared memory: progress until quiet so reads can still match it.
      auto data = st->data_worker.lock();
      if (data) data->drain();
      if (data && st->pending_recv) data->cancel(st->pending_recv);
      st->force_close();
    }
  }
  for (size_t i = 0; i < closing_.size();) {
    if (ucp_request_check_status(closing_[i].request) != UCS_INPROGRESS) {
      ucp_request_free(closing_[i].request);
      closing_[i] = std::move(closing_.back());
      closing_.pop_back();
    } else {
      ++i;
    }
  }
}

bool Worker::cooperative_tries(Op& op, CancelToken token, CancelHook hook) {
  for (;;) {
    progress();
    if (op.done) break;
    if (op.cancel_asked || !token.cancelled()) break;
    op.cancel_asked = true;
    if (hook.fn) hook.fn(hook.arg, op.request);
    if (op.done) break;
  }
  // A few more tries while nobody else is ready (EventLoop::kCooperativeExtraTests says why).
  for (int i = 0; i < EventLoop::kCooperativeExtraTests && !op.done && !loop_.others_ready(); ++i)
    progress();
  if (op.done) loop_.retry_found_something();
  return op.done;
}

bool Worker::Wait::await_suspend(std::coroutine_handle<> h) {
  if (w_.policy_ == Progress::cooperative) {
    w_.loop_.retry(h);  // a yield; the next await tries again
    return true;
  }
  if (token_.can_be_cancelled()) {
    if (token_.cancelled()) {
      if (hook_.fn) hook_.fn(hook_.arg, op_.request);
      if (op_.done) return false;  // the hook completed it on the spot
    } else {
      reg_.on_cancel = &Wait::on_cancel;
      reg_.owner = this;
      token_.state()->add(&reg_);
      registered_ = true;
    }
  }
  if (op_.handoff) {
    // The completion may be running on the progress thread right now: the exchange
    // decides whether it saw us waiting (it posts us) or finished first (we go on).
    op_.node.handle = h;
    int idle = Op::kIdle;
    if (!op_.handoff_state.compare_exchange_strong(idle, Op::kWaiting, std::memory_order_acq_rel)) {
      if (registered_) token_.state()->remove(&reg_);
      registered_ = false;
      return false;
    }
    op_.handoff->expect();
  } else {
    op_.loop = &w_.loop_;
    op_.waiter = h;
  }
  ++w_.waiting_;
  suspended_ = true;
  return true;
}

void Worker::Wait::resumed() noexcept {
  --w_.waiting_;
  if (op_.handoff) op_.handoff->unexpect();
  if (registered_) token_.state()->remove(&reg_);
}

void Worker::Wait::on_cancel(CancelRegistration* r) {
  auto* self = static_cast<Wait*>(r->owner);
  self->registered_ = false;  // the state unlinked it before calling
  if (!self->op_.done && self->hook_.fn) self->hook_.fn(self->hook_.arg, self->op_.request);
}

}  // namespace commbench::ucx
