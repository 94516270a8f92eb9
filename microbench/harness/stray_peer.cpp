#include "harness/stray_peer.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "comm/handshake.hpp"
#include "tcp/socket_util.hpp"

namespace commbench {

StrayPeer::StrayPeer(HostPort target, const JobToken& job_token)
    : target_(std::move(target)), token_(job_token), thread_([this] { run(); }) {}

StrayPeer::~StrayPeer() {
  stop_ = true;
  thread_.join();
}

void StrayPeer::run() {
  for (int kind = 0; !stop_; kind = (kind + 1) % 4) {
    knock(kind);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// One stray connection of `kind`: 0 wrong token, 1 right token but "rank 7" (not the
// expected peer), 2 a version-1 hello, 3 silence. Then it waits (at most 2 s) for the
// listener to hang up, so the refusal is counted before the next knock.
void StrayPeer::knock(int kind) {
  socklen_t len = 0;
  sockaddr_storage sa = tcp::resolve(target_, len);
  tcp::FdGuard fd(::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0 || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0) return;
  std::vector<std::byte> bytes;
  if (kind == 0 || kind == 1) {
    Hello h{kHelloVersion, "tcp://stray", token_, kind == 0 ? "rank 0" : "rank 7"};
    if (kind == 0) h.token[0] ^= std::byte{0x5a};
    bytes = encode_hello(h);
  } else if (kind == 2) {
    bytes = encode_hello(Hello{kHelloVersion, "", {}, ""});
    bytes.resize(8);
    bytes[4] = std::byte{1};  // version 1, empty name: all a version-1 hello was
    bytes[6] = bytes[7] = std::byte{0};
  }
  if (!bytes.empty() && ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) < 0) return;
  // Silence (kind 3) waits out the listener's handshake timeout unless shut early: it
  // half-closes after a moment, which a listener sees as a failed hello.
  if (kind == 3) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::shutdown(fd.get(), SHUT_WR);
  }
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  char sink[4096];
  while (!stop_ && std::chrono::steady_clock::now() < until) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    if (::recv(fd.get(), sink, sizeof sink, 0) <= 0) return;  // hung up on us: refused
  }
}

}  // namespace commbench
