#include "mpi/mpi_engine.hpp"

#include <sys/prctl.h>

#include "comm/errors.hpp"
#include "mpi/mpi_channel.hpp"
#include "mpi/mpi_context.hpp"
#include "mpi/mpi_wire.hpp"

namespace commbench::mpi {

// --- Op --------------------------------------------------------------------------------

void Op::completed() noexcept {
  req = MPI_REQUEST_NULL;
  error = status.MPI_ERROR;
  unlink();
  // After the peer's close, the last message it announced leaves every read still posted
  // unmatchable (Channel::count_received).
  if (recv_channel) recv_channel->count_received();
}

Op::~Op() {
  if ((req != MPI_REQUEST_NULL || slot != npos || trip.in_thread()) && engine)
    engine->abandon(*this, false);
  unlink();
}

// --- Wait ------------------------------------------------------------------------------

bool Engine::Wait::await_ready() {
  if (op_.aborted || op_.req == MPI_REQUEST_NULL) return done_ = true;
  if (token_.cancelled()) {
    op_.cancelled = true;
    op_.timed_out = token_.state()->by_timeout();
    return true;
  }
  // Cooperative: a few more tests while nobody else is ready, as ucx:cooperative makes
  // (EventLoop::kCooperativeExtraTests says why); the other policies test once here.
  const int tests = policy_ == Progress::cooperative ? 1 + EventLoop::kCooperativeExtraTests : 1;
  for (int i = 0; i < tests; ++i) {
    if (i > 0 && e_.loop_.others_ready()) break;
    int flag = 0;
    op_.status.MPI_ERROR = MPI_SUCCESS;
    int rc = MPI_Test(&op_.req, &flag, &op_.status);
    if (rc != MPI_SUCCESS) {
      op_.status.MPI_ERROR = rc;
      flag = 1;
    }
    if (flag) {
      op_.completed();
      e_.loop_.retry_found_something();
      return done_ = true;
    }
  }
  return false;
}

bool Engine::Wait::await_suspend(std::coroutine_handle<> h) {
  switch (policy_) {
    case Progress::cooperative:
      e_.loop_.retry(h);  // test again next turn
      return true;
    case Progress::blocking: {
      op_.status.MPI_ERROR = MPI_SUCCESS;
      int rc = MPI_Wait(&op_.req, &op_.status);
      if (rc != MPI_SUCCESS) op_.status.MPI_ERROR = rc;
      op_.completed();
      done_ = true;
      return false;
    }
    case Progress::thread:
      op_.handle = h;
      op_.token = token_;
      e_.thread_->submit(op_);
      token_.watch(op_.reg, &Engine::on_cancel_thread, &op_);
      done_ = true;
      return true;
    case Progress::batched:
      break;
  }
  op_.handle = h;
  e_.add(op_);
  op_.token = token_;
  token_.watch(op_.reg, &Engine::on_cancel, &op_);
  done_ = true;  // batched resumes only when finished, aborted or cancelled
  return true;
}

bool Engine::Wait::await_resume() {
  if (op_.trip.in_thread()) e_.thread_returned(op_);
  if (op_.cancelled) CancelToken::throw_cancelled(op_.timed_out, "mpi request");
  if (op_.aborted) throw CommClosedError("connection closed while an mpi request was pending");
  if (!done_) return false;
  if (op_.error != MPI_SUCCESS) throw_mpi_error(op_.error, "request");
  return true;
}

// --- Engine ----------------------------------------------------------------------------

Engine::Engine(EventLoop& loop, Progress progress, std::shared_ptr<Context> ctx)
    : loop_(loop), progress_(progress), ctx_(std::move(ctx)) {
  // MPI cannot wake the loop through a descriptor, so an idle loop naps in short
  // timeouts (2 us and up). With the default 50 us timer slack every such nap lasts
  // >= 50 us, and two ranks waiting on each other's rendezvous handshakes then nap in
  // turn on every message; 1 us slack keeps the naps as short as the loop asks.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  ctx_->engine_added();
  loop_.add_poller(this);
  if (progress_ == Progress::thread) thread_ = std::make_unique<ThreadProgress>(loop_);
}

Engine::~Engine() {
  if (thread_) {
    thread_->stop([this](Op& op, MPI_Request live) {
      if (live != MPI_REQUEST_NULL) retire(op, live);
      op.req = MPI_REQUEST_NULL;
      op.engine = nullptr;
    });
  }
  loop_.remove_poller(this);
  // Waiters still registered belong to coroutines that will never run again; their
  // requests go to the graveyard so MPI never writes into freed frames unsupervised.
  while (!set_.empty()) {
    Op* op = set_.last();
    MPI_Request r = set_.remove(*op);
    if (r != MPI_REQUEST_NULL) retire(*op, r);
    op->engine = nullptr;
  }
  ctx_->engine_removed();
}

void Engine::add(Op& op) {
  set_.add(op, op.req);
  op.req = MPI_REQUEST_NULL;  // while in the set, the set holds the live handle
}

void Engine::on_cancel(CancelRegistration* r) {
  auto* op = static_cast<Op*>(r->owner);
  Engine* e = op->engine;
  MPI_Request req = e->set_.remove(*op);
  op->req = req;  // still outstanding: the caller aborts the comm, which buries it
  op->cancelled = true;
  op->timed_out = op->token.state()->by_timeout();
  e->loop_.schedule(op->handle);
}

void Engine::on_cancel_thread(CancelRegistration* r) {
  auto* op = static_cast<Op*>(r->owner);
  // The state unlinked `reg` before calling; what the token says is read now, while it
  // exists. The waiter resumes when the thread hands the op back (thread_returned).
  op->trip.cancel_wanted = true;
  op->timed_out = op->token.state()->by_timeout();
  op->token = {};
  op->engine->thread_->reclaim(*op);
}

void Engine::thread_returned(Op& op) {
  thread_->resumed(op);
  if (op.token.can_be_cancelled()) op.token.state()->remove(&op.reg);
  op.token = {};
  if (!op.trip.returned) {
    op.completed();  // the thread filled in op.status
    return;
  }
  if (op.trip.abandon_wanted) {
    // abandon() asked for it: bury the live request now; the waiter sees the abort.
    if (op.req != MPI_REQUEST_NULL) retire(op, op.req);
    op.req = MPI_REQUEST_NULL;
    op.unlink();
    op.aborted = true;
  } else if (op.trip.cancel_wanted) {
    op.cancelled = true;  // op.req stays live: the caller aborts the comm, which buries it
  }
}

void Engine::retire(const Op& op, MPI_Request r) noexcept {
  // A data send is buried, never cancelled. The close notice tells the peer how many
  // messages we sent it (Channel::sent) and the peer's reads fail only once that many
  // have arrived (Channel::exhausted). Open MPI never cancels a send, but MPICH (ch4)
  // does cancel one whose rendezvous has not matched yet: the peer then waits forever
  // for a message that never comes, and never learns of the close (FaultSuite
  // DropMidMessage/mpi_* hung under MPICH). Cancelling sends is also deprecated in
  // MPI 4.0. So the send ends when the peer receives it or drains it after its own close.
  if (!op.counted_send) MPI_Cancel(&r);
  ctx_->bury(r, op.recv_channel);
}

void Engine::abandon(Op& op, bool resume) noexcept {
  if (op.trip.in_thread()) {
    if (resume) {
      // The waiter resumes when the thread hands it back, and thread_returned buries it.
      op.trip.abandon_wanted = true;
      thread_->reclaim(op);
      return;
    }
    // The op's frame is going away: take it back now.
    if (op.token.can_be_cancelled()) op.token.state()->remove(&op.reg);
    op.token = {};
    op.req = thread_->reclaim_now(op);
  }
  bool suspended = op.slot != Op::npos;
  if (suspended) {
    MPI_Request req = set_.remove(op);
    op.req = req;
    if (op.token.can_be_cancelled()) op.token.state()->remove(&op.reg);
  }
  if (op.req != MPI_REQUEST_NULL) {
    retire(op, op.req);
    op.req = MPI_REQUEST_NULL;
  }
  op.unlink();
  op.aborted = true;
  if (suspended && resume) loop_.schedule(op.handle);
}

bool Engine::has_work() const noexcept {
  return !set_.empty() || ctx_->has_work();
}

bool Engine::test_set() {
  if (!set_.test(done_)) return false;
  last_completion_tick_ = tick_;
  for (Op* op : done_) {
    if (op->token.can_be_cancelled()) op->token.state()->remove(&op->reg);
    op->completed();
    loop_.schedule(op->handle);
  }
  done_.clear();
  return true;
}

bool Engine::poll() {
  bool did = false;
  if (!set_.empty()) did = test_set();
  // The control channel is checked every 64th busy turn: it carries connects and close
  // notices, never the measured messages, and its two MPI_Tests each run a full progress
  // call (~500 instructions per check; at every 8th turn that was ~10% of a spin turn and
  // delayed the data request's next test). A busy turn is well under a microsecond, so
  // this still looks every few tens of microseconds; an idle loop checks before every
  // nap (try_arm), so accepts and close notices are not slowed down while idle.
  if ((++tick_ & 63) == 0 && ctx_->poll()) did = true;
  return did;
}

ArmResult Engine::try_arm() {
  // About to nap: control traffic that arrived means there is work, not a nap.
  if (ctx_->poll()) return ArmResult::busy;
  // A transfer in progress (requests completing every few hundred turns: a rendezvous
  // message, a window of sends) advances only while we call into MPI; napping between its
  // completions stretched a 1 MiB ping-pong from ~80 us to ~2 ms. So stay awake for
  // kActiveTurns after the last completion (~1-2 ms of spinning, counted in turns so the
  // hot path reads no clock), and nap only once the requests have been quiet that long.
  constexpr unsigned kActiveTurns = 4096;
  if (!set_.empty() && tick_ - last_completion_tick_ < kActiveTurns) return ArmResult::busy;
  return ArmResult::cannot_arm;
}

}  // namespace commbench::mpi
