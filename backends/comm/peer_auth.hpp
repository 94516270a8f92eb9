// Who may connect: the job's secret token and this end's identity, which every backend
// puts in its hello and checks in the peer's (tcp, tcp:uring, ucx: comm/handshake.hpp;
// mpi: the control channel's ConnectRequest). A peer with a wrong or missing token is
// refused with ProtocolError and counted in `rejected`; the listener goes on serving.
//
// The token is a secret: it is compared in constant time and never formatted — no
// message, log line, CSV cell or sidecar field may contain it (tests/README.md names
// the test that greps a run's output for it). The launcher's bootstrap draws it on rank 0
// and broadcasts it (harness/bootstrap.hpp); in-process tests set their own. A default
// PeerAuth holds the all-zero token, so two ends that set none still agree.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "comm/errors.hpp"

namespace commbench {

// Why a peer was refused. Counted apart so that a run's sidecar shows each kind of stray
// refused (rejected_peers_by_reason), not only a total that one kind could fill.
enum class Refusal : uint8_t {
  wrong_token,     // another job's token, or none (an unconfigured peer's all-zero token)
  wrong_identity,  // this job's token, but not the peer this end expects (or a second one)
  bad_hello,       // not a hello this version reads (old version, bad magic, truncated)
  silent,          // said nothing in time, or left before its hello
};
constexpr size_t kRefusalKinds = 4;
const char* to_string(Refusal r) noexcept;

// The ProtocolErrors a refusal is told apart by (their messages never hold the token).
class WrongJobToken : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};
class WrongPeerIdentity : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};

// The refusal a failed handshake amounts to: WrongJobToken, WrongPeerIdentity, any other
// ProtocolError (bad_hello), anything else (a timeout, a close: silent).
Refusal refusal_of(std::exception_ptr e) noexcept;

constexpr size_t kJobTokenBytes = 16;  // 128 bits
using JobToken = std::array<std::byte, kJobTokenBytes>;
// The longest identity a hello may carry ("rank 12", "worker 3").
constexpr size_t kMaxPeerId = 64;

// 128 bits from getrandom(2). Throws std::runtime_error when the kernel gives none.
JobToken random_job_token();

// A rank's identity in every hello, "rank N" (the launcher's rank), and back: the rank a
// peer's identity names, or -1 for anything else ("rank -1", "rank 07x", "worker 3").
std::string rank_identity(int rank);
int rank_of_identity(std::string_view id) noexcept;

// 32 hex digits (tests set a known token this way); false on anything else.
bool parse_job_token(std::string_view hex, JobToken& out) noexcept;

// Equal, in time that does not depend on where the first difference is.
bool same_token(std::span<const std::byte> a, const JobToken& b) noexcept;

struct PeerAuth {
  JobToken token{};     // all zero unless the launcher or a test sets one
  std::string self_id;  // this end's identity, sent in every hello ("rank 0"); may be empty
  // Peers refused, per Refusal. Shared by every copy of these options (backend,
  // listeners, connectors), so the harness reads one set of counts per rank.
  using Counts = std::array<std::atomic<uint64_t>, kRefusalKinds>;
  std::shared_ptr<Counts> rejected = std::make_shared<Counts>();

  void count_rejected(Refusal why) const noexcept {
    (*rejected)[static_cast<size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t rejected_count(Refusal why) const noexcept {
    return (*rejected)[static_cast<size_t>(why)].load(std::memory_order_relaxed);
  }
  uint64_t rejected_count() const noexcept {
    uint64_t n = 0;
    for (const auto& c : *rejected) n += c.load(std::memory_order_relaxed);
    return n;
  }
  // Throws WrongJobToken (without the token in it) unless `theirs` is this job's token.
  // Counting the refusal is the caller's, which knows whether the connection is dropped.
  void check_token(std::span<const std::byte> theirs, const char* where) const;
};

}  // namespace commbench
