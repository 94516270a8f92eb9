#include "comm/peer_auth.hpp"

#include <sys/random.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string>

#include "comm/errors.hpp"

namespace commbench {

JobToken random_job_token() {
  JobToken t{};
  size_t got = 0;
  while (got < t.size()) {
    ssize_t n = ::getrandom(t.data() + got, t.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error(std::string("cannot draw the job token: getrandom: ") +
                               std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  return t;
}

std::string rank_identity(int rank) {
  return "rank " + std::to_string(rank);
}

int rank_of_identity(std::string_view id) noexcept {
  constexpr std::string_view prefix = "rank ";
  if (id.substr(0, prefix.size()) != prefix) return -1;
  int r = -1;
  const char* first = id.data() + prefix.size();
  const char* last = id.data() + id.size();
  // from_chars reads a sign, so "rank -0" would parse; a rank has none (nor does an empty
  // tail reach the dereference: from_chars fails on it first)
  auto [end, ec] = std::from_chars(first, last, r);
  return ec == std::errc() && end == last && *first != '-' ? r : -1;
}

bool parse_job_token(std::string_view hex, JobToken& out) noexcept {
  if (hex.size() != 2 * kJobTokenBytes) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < kJobTokenBytes; ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::byte>(hi * 16 + lo);
  }
  return true;
}

bool same_token(std::span<const std::byte> a, const JobToken& b) noexcept {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < b.size(); ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

void PeerAuth::check_token(std::span<const std::byte> theirs, const char* where) const {
  if (same_token(theirs, token)) return;
  throw WrongJobToken(std::string(where) + ": peer presented a wrong job token (not this job's)");
}

const char* to_string(Refusal r) noexcept {
  switch (r) {
    case Refusal::wrong_token:
      return "wrong_token";
    case Refusal::wrong_identity:
      return "wrong_identity";
    case Refusal::bad_hello:
      return "bad_hello";
    case Refusal::silent:
      return "silent";
  }
  return "?";
}

Refusal refusal_of(std::exception_ptr e) noexcept {
  try {
    std::rethrow_exception(e);
  } catch (const WrongJobToken&) {
    return Refusal::wrong_token;
  } catch (const WrongPeerIdentity&) {
    return Refusal::wrong_identity;
  } catch (const ProtocolError&) {
    return Refusal::bad_hello;
  } catch (...) {
    return Refusal::silent;
  }
}

}  // namespace commbench
