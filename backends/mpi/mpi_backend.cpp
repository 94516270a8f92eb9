#include "mpi/mpi_backend.hpp"

#include <charconv>
#include <cstring>
#include <optional>

#include "comm/address.hpp"
#include "comm/connect_retry.hpp"
#include "comm/errors.hpp"
#include "gpu/cuda_support.hpp"
#include "mpi/mpi_comm.hpp"
#include "mpi/mpi_context.hpp"
#include "mpi/mpi_engine.hpp"
#include "mpi/mpi_session.hpp"
#include "mpi/mpi_wire.hpp"
#include "runtime/spawn.hpp"
#include "runtime/timeout.hpp"

namespace commbench::mpi {

namespace {

using namespace std::chrono_literals;

struct RankService {
  int rank = 0;
  int service = 0;  // 0: any (listener) / missing (connector)
};

RankService parse_mpi_address(const std::string& address) {
  Address a = parse_address(address);
  if (a.scheme != "mpi") throw AddressError("not an mpi address: '" + address + "'");
  const std::string& loc = a.location;
  auto bad = [&] {
    return AddressError("malformed mpi address '" + address + "' (expected mpi://rank[:service])");
  };
  auto colon = loc.find(':');
  std::string_view r = std::string_view(loc).substr(0, colon);
  std::string_view s =
      colon == std::string::npos ? std::string_view() : std::string_view(loc).substr(colon + 1);
  RankService out;
  auto num = [&](std::string_view v, int& into) {
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), into);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || into < 0) throw bad();
  };
  num(r, out.rank);
  if (colon != std::string::npos) num(s, out.service);
  return out;
}

// --backend-opt max_tags=N (mpi_tag_table.hpp): 0 when not given.
int parse_max_tags(const BackendOptions& options) {
  auto it = options.extra.find(kMaxTagsKey);
  if (it == options.extra.end()) return 0;
  int v = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 1)
    throw std::invalid_argument(std::string(kMaxTagsKey) + " must be a count >= 1 (got '" + s +
                                "')");
  return v;
}

std::string rank_address(int rank) {
  return "mpi://" + std::to_string(rank);
}

Task<void> serve(std::shared_ptr<CommHandler> handler, std::unique_ptr<Comm> comm) {
  co_await (*handler)(std::move(comm));
}

class MpiListener final : public Listener {
 public:
  MpiListener(std::shared_ptr<Engine> engine, const WireOptions& wire, std::string address,
              PeerAuth auth)
      : engine_(std::move(engine)),
        wire_(wire),
        address_(std::move(address)),
        auth_(std::move(auth)) {}
  ~MpiListener() override { stop(); }

  Task<void> start(CommHandler handler) override {
    RankService rs = parse_mpi_address(address_);
    Context& ctx = engine_->context();
    if (rs.rank != ctx.rank())
      throw AddressError("cannot listen on " + address_ + ": this is rank " +
                         std::to_string(ctx.rank()));
    std::string contact_base = rank_address(ctx.rank());
    ListenerRec rec;
    // The handler is shared with every coroutine it starts: a handler coroutine refers to
    // its callable (a lambda's captures), which must outlive a listener stopped while
    // connections are still being served.
    auto shared = std::make_shared<CommHandler>(std::move(handler));
    rec.on_accept = [engine = engine_, wire = wire_, shared, local = contact_base](
                        std::shared_ptr<Channel> ch, const std::string& peer,
                        const std::string& peer_id) {
      auto comm = std::make_unique<MpiComm>(engine, std::move(ch), wire, local, peer);
      comm->set_peer_id(peer_id);
      spawn(engine->loop(), serve(shared, std::move(comm)));
    };
    rec.auth = auth_;
    service_ = ctx.add_listener(rs.service, std::move(rec));
    contact_ = contact_base + ":" + std::to_string(service_);
    co_return;
  }

  void stop() noexcept override {
    if (service_ > 0) engine_->context().remove_listener(service_);
    service_ = 0;
  }

  std::string contact_address() const override { return contact_; }

 private:
  std::shared_ptr<Engine> engine_;
  WireOptions wire_;
  std::string address_;
  std::string contact_;
  PeerAuth auth_;
  int service_ = 0;
};

class MpiConnector final : public Connector {
 public:
  MpiConnector(std::shared_ptr<Engine> engine, const WireOptions& wire, PeerAuth auth)
      : engine_(std::move(engine)), wire_(wire), auth_(std::move(auth)) {
    if (auth_.self_id.size() > kMaxPeerId) throw ProtocolError("mpi: identity too long");
  }

  Task<std::unique_ptr<Comm>> connect(const std::string& address,
                                      std::chrono::nanoseconds timeout) override {
    RankService rs = parse_mpi_address(address);
    if (rs.service == 0)
      throw AddressError("mpi address '" + address + "' names no service (mpi://rank:service)");
    Context& ctx = engine_->context();
    if (rs.rank >= ctx.size())
      throw ConnectError("could not connect to " + address + ": no rank " +
                         std::to_string(rs.rank) + " (the job has " + std::to_string(ctx.size()) +
                         " ranks)");
    co_return co_await connect_with_retry(
        engine_->loop(), address, timeout,
        [&](CancelToken t, std::string& why) { return attempt(address, rs, t, why); },
        "no answer from rank " + std::to_string(rs.rank));
  }

 private:
  Task<std::unique_ptr<Comm>> attempt(std::string address, RankService rs, CancelToken token,
                                      std::string& why) {
    Context& ctx = engine_->context();
    int tag = ctx.alloc_tag();
    int lane = ctx.alloc_lane(rs.rank);
    ConnectRequest req;
    req.service = rs.service;
    req.reply_tag = tag;
    req.reply_lane = static_cast<uint16_t>(lane + 1);
    req.nonce = next_nonce(ctx.rank());
    req.token = auth_.token;
    req.id_len = static_cast<uint16_t>(auth_.self_id.size());
    std::memcpy(req.id, auth_.self_id.data(), auth_.self_id.size());
    auto req_buf = std::make_unique<std::byte[]>(sizeof req);
    std::memcpy(req_buf.get(), &req, sizeof req);
    std::byte rep_buf[sizeof(ConnectReply)];
    Op rop, sop;
    rop.engine = sop.engine = engine_.get();
    MPI_Irecv(rep_buf, sizeof rep_buf, MPI_BYTE, rs.rank, tag, ctx.control(), &rop.req);
    MPI_Isend(req_buf.get(), sizeof req, MPI_BYTE, rs.rank, Context::kTagConnect, ctx.control(),
              &sop.req);
    bool cancelled = false;
    try {
      while (!co_await engine_->wait_batched(sop, token)) {
      }
      while (!co_await engine_->wait_batched(rop, token)) {
      }
    } catch (const OperationCancelled&) {
      cancelled = true;
    }
    if (cancelled) {
      // A receive cancel is local: waiting for it returns at once. The request send may
      // still be queued at an unresponsive rank: it keeps its buffer in the graveyard.
      if (rop.req != MPI_REQUEST_NULL) {
        MPI_Cancel(&rop.req);
        MPI_Wait(&rop.req, MPI_STATUS_IGNORE);
      }
      if (sop.req != MPI_REQUEST_NULL) {
        MPI_Cancel(&sop.req);
        ctx.bury(sop.req, nullptr, std::move(req_buf));
        sop.req = MPI_REQUEST_NULL;
      }
      // The listener may still accept and answer on this tag: never reuse it.
      ctx.leak_tag(tag);
      ctx.leak_lane(lane);
      token.throw_cancelled("connect to " + address);
    }
    // A failed receive (a longer reply is truncated) counts as no reply.
    size_t got = rop.status.MPI_ERROR == MPI_SUCCESS ? received_bytes(rop.status) : 0;
    std::optional<ConnectReply> rep =
        decode_connect_reply({rep_buf, got}, req.nonce, Context::kLanes);
    if (rep && rep->status == 0) {
      auto ch = ctx.open_channel(rs.rank, tag, rep->tag, lane, rep->lane - 1);
      auto comm = std::make_unique<MpiComm>(engine_, std::move(ch), wire_, rank_address(ctx.rank()),
                                            address);
      comm->set_peer_id(std::string(rep->id, rep->id_len));
      co_return comm;
    }
    ctx.free_tag(tag);
    ctx.free_lane(rs.rank, lane);
    // Not transient: retrying with the same token is refused again.
    if (rep && rep->status == 3)
      throw ProtocolError("could not connect to " + address +
                          ": the listener refused our job token (another job's peer)");
    // Not transient either: tags come back only when the listener's rank closes something.
    if (rep && rep->status == 4)
      throw CommError("could not connect to " + address + ": rank " + std::to_string(rs.rank) +
                      " is " + ctx.tags_exhausted_message().substr(std::strlen("mpi backend: ")));
    why = rep && rep->status == 1 ? "nothing listens on service " + std::to_string(rs.service) +
                                        " of rank " + std::to_string(rs.rank)
                                  : "the listener rejected the handshake";
    co_return nullptr;
  }

  static uint64_t next_nonce(int rank) {
    static uint64_t counter = 0;
    return (static_cast<uint64_t>(rank) << 40) | ++counter;
  }

  std::shared_ptr<Engine> engine_;
  WireOptions wire_;
  PeerAuth auth_;
};

class MpiBackend final : public Backend {
 public:
  MpiBackend(EventLoop& loop, const BackendOptions& options)
      : wire_(parse_wire_options(options)), auth_(options.auth) {
    Progress progress = parse_progress(options.progress);
    ensure_mpi(required_thread_level(progress));
    auto it = options.extra.find(kPairCommsKey);
    bool given = it != options.extra.end();
    PairMethod method = given ? parse_pair_method(it->second) : kDefaultPairMethod;
    engine_ = std::make_shared<Engine>(loop, progress,
                                       Context::acquire(method, given, parse_max_tags(options)));
  }
  std::string scheme() const override { return "mpi"; }
  std::string progress() const override { return to_string(engine_->progress()); }
  std::unique_ptr<Listener> make_listener(const std::string& address) override {
    return std::make_unique<MpiListener>(engine_, wire_, address, auth_);
  }
  std::unique_ptr<Connector> make_connector() override {
    return std::make_unique<MpiConnector>(engine_, wire_, auth_);
  }
  std::string default_listen_address(const std::string&) const override {
    return rank_address(engine_->context().rank()) + ":0";
  }
  // A CUDA-aware MPI gets the device pointers themselves: device frames are never
  // inlined into a packed message nor sent bare (mpi_wire.hpp's plan_message), so no
  // host memcpy ever touches them. Debian's Open MPI and MPICH say no, and
  // gpu::choose_path then refuses --gpu-path pass-through.
  bool accepts_device_memory() const override { return gpu::mpi_reports_cuda_support(); }
  BackendResources resources() const override {
    const Context& ctx = engine_->context();
    BackendResources r;
    r.mpi_comms = static_cast<long long>(ctx.communicators());
    r.mpi_tags_live = static_cast<long long>(ctx.stats().tags_live);
    r.mpi_tags_allocated = static_cast<long long>(ctx.stats().tags_allocated);
    r.mpi_tag_limit = ctx.tag_capacity();
    return r;
  }

 private:
  WireOptions wire_;
  PeerAuth auth_;
  std::shared_ptr<Engine> engine_;
};

}  // namespace

std::vector<SettingInfo> backend_settings() {
  std::vector<SettingInfo> s = wire_settings();
  s.push_back(pair_comms_setting());
  s.push_back({kMaxTagsKey,
               {},
               "",
               "connection ends (one MPI tag each) a rank may hold at once; default: all that "
               "MPI_TAG_UB allows (at most 2^24); fixed per process"});
  return s;
}

std::unique_ptr<Backend> make_mpi_backend(EventLoop& loop, const BackendOptions& options) {
  return std::make_unique<MpiBackend>(loop, options);
}

}  // namespace commbench::mpi
