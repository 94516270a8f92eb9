#include "loop_fixture.hpp"

#include <cctype>

#include "comm/errors.hpp"
#include "comm/registry.hpp"
#include "runtime/when_all.hpp"

namespace commbench::testing {

using namespace std::chrono_literals;

std::vector<BackendParam> all_backend_params() {
  std::vector<BackendParam> out;
  for (const auto& scheme : registry().schemes())
    for (const auto& p : registry().info(scheme).progress_policies)
      if (!p.stalls_loop) out.push_back({scheme, p.name});  // in-process peers would deadlock
  return out;
}

std::vector<BackendParam> default_backend_params() {
  std::vector<BackendParam> out;
  for (const auto& scheme : registry().schemes())
    out.push_back({scheme, registry().info(scheme).progress_policies.front().name});
  return out;
}

std::string param_name(const ::testing::TestParamInfo<BackendParam>& info) {
  std::string n = info.param.scheme + "_" + info.param.progress;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

void LoopFixture::use_backend(const std::string& scheme, const std::string& progress) {
  BackendOptions o;
  o.progress = progress;
  // A real job token, as the harness's bootstrap hands out (comm/peer_auth.hpp): every
  // suite runs with the hello's token check armed.
  o.auth.token = random_job_token();
  o.auth.self_id = "suite";
  auth_ = o.auth;
  options_ = o;
  try {
    backend_ = registry().create(scheme, loop_, o);
  } catch (const BackendUnavailable& e) {
    GTEST_SKIP() << e.what();
  }
  under_test_ = backend_.get();
  loop_.set_error_handler([this](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      handler_errors_.push_back(ex.what());
    }
  });
}

void LoopFixture::TearDown() {
  for (auto& l : listeners_) l->stop();
  // Let detached handlers (echo servers) finish before the loop and backend go away. A
  // fixed 5 ms was not enough under ASan: a handler still suspended in a read kept its
  // mpi comm, and the peer's close notice reached it in the *next* test, which resumed it
  // into this test's freed loop (heap-use-after-free in the comm suite's
  // ManyConcurrentConnections/mpi, once in five full runs). Bounded at 5 s.
  EXPECT_TRUE(loop_.settle_detached(5s)) << "a connection handler did not finish";
  listeners_.clear();
}

Task<std::string> LoopFixture::listen(Backend& b, CommHandler handler) {
  listeners_.push_back(b.make_listener(b.default_listen_address("127.0.0.1")));
  co_await listeners_.back()->start(std::move(handler));
  co_return listeners_.back()->contact_address();
}

Task<std::unique_ptr<Comm>> LoopFixture::connect(std::string address) {
  co_return co_await connect(std::move(address), connect_timeout_);
}

Task<std::unique_ptr<Comm>> LoopFixture::connect(std::string address,
                                                 std::chrono::nanoseconds timeout) {
  auto c = under_test_->make_connector();
  co_return co_await c->connect(address, timeout);
}

Task<void> LoopFixture::connect_pair(std::unique_ptr<Comm>& client, std::unique_ptr<Comm>& server) {
  std::string addr = co_await listen([&server](std::unique_ptr<Comm> c) -> Task<void> {
    server = std::move(c);
    co_return;
  });
  client = co_await connect(addr);
  while (!server) co_await loop_.sleep_for(1ms);
}

Task<void> LoopFixture::expect_echoes(Comm& comm, const std::vector<Shape>& shapes) {
  Message in;
  for (size_t id = 0; id < shapes.size(); ++id) {
    PatternMessage out(id, shapes[id]);
    co_await comm.write(out.msg);
    co_await comm.read(in);
    EXPECT_EQ(wrong_bytes(in, id, shapes[id]), 0u) << "message " << id;
  }
}

Task<void> LoopFixture::expect_pipelined_echoes(Comm& comm, const std::vector<Shape>& shapes) {
  std::vector<PatternMessage> outs;
  for (size_t id = 0; id < shapes.size(); ++id) outs.emplace_back(id, shapes[id]);
  std::vector<Message> ins(shapes.size());
  std::vector<Task<void>> ops;
  for (const auto& out : outs) ops.push_back(comm.write(out.msg));
  for (auto& in : ins) ops.push_back(comm.read(in));
  co_await when_all(std::move(ops));
  for (size_t id = 0; id < shapes.size(); ++id)
    EXPECT_EQ(wrong_bytes(ins[id], id, shapes[id]), 0u) << "message " << id;
}

Task<bool> LoopFixture::read_fails_closed(Comm& comm) {
  Message m;
  try {
    co_await comm.read(m);
  } catch (const CommClosedError&) {
    co_return true;
  }
  co_return false;
}

Task<bool> LoopFixture::read_times_out(Comm& comm, std::chrono::milliseconds limit) {
  try {
    Message m;
    co_await with_timeout(loop_, limit, [&](CancelToken t) { return comm.read(m, t); });
  } catch (const TimeoutError&) {
    co_return true;
  }
  co_return false;
}

Task<bool> LoopFixture::peer_close_fails_read(Comm& reader, Comm& closer) {
  bool failed = false;
  auto read = [&]() -> Task<void> { failed = co_await read_fails_closed(reader); };
  auto close = [&]() -> Task<void> {
    co_await loop_.sleep_for(10ms);
    co_await closer.close();
  };
  co_await when_all(read(), close());
  co_return failed;
}

}  // namespace commbench::testing
