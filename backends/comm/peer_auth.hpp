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
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace commbench {

constexpr size_t kJobTokenBytes = 16;  // 128 bits
using JobToken = std::array<std::byte, kJobTokenBytes>;
// The longest identity a hello may carry ("rank 12", "worker 3").
constexpr size_t kMaxPeerId = 64;

// 128 bits from getrandom(2). Throws std::runtime_error when the kernel gives none.
JobToken random_job_token();

// 32 hex digits (tests set a known token this way); false on anything else.
bool parse_job_token(std::string_view hex, JobToken& out) noexcept;

// Equal, in time that does not depend on where the first difference is.
bool same_token(std::span<const std::byte> a, const JobToken& b) noexcept;

struct PeerAuth {
  JobToken token{};     // all zero unless the launcher or a test sets one
  std::string self_id;  // this end's identity, sent in every hello ("rank 0"); may be empty
  // Peers refused for a wrong token, a malformed hello or a wrong identity. Shared by
  // every copy of these options (backend, listeners, connectors), so the harness reads
  // one number per rank.
  std::shared_ptr<std::atomic<uint64_t>> rejected = std::make_shared<std::atomic<uint64_t>>(0);

  void count_rejected() const noexcept { rejected->fetch_add(1, std::memory_order_relaxed); }
  uint64_t rejected_count() const noexcept { return rejected->load(std::memory_order_relaxed); }
  // Throws ProtocolError (without the token in it) unless `theirs` is this job's token.
  // Counting the refusal is the caller's, which knows whether the connection is dropped.
  void check_token(std::span<const std::byte> theirs, const char* where) const;
};

}  // namespace commbench
