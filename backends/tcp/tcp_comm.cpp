#include "tcp/tcp_comm.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "comm/errors.hpp"
#include "tcp/socket_util.hpp"
#if COMMBENCH_HAVE_URING
#include "tcp/uring_ring.hpp"
#endif

namespace commbench::tcp {

namespace {
constexpr size_t kStagingBytes = 64 * 1024;
// Reads larger than this go straight into the frame instead of through staging.
constexpr size_t kDirectReadBytes = kStagingBytes / 2;
// Messages up to this size (header included) are copied into one buffer and sent with
// send(): a gathered sendmsg() of header and frames cost more than the copy
// (results/ab-tcp-coalesce).
constexpr size_t kCoalesceBytes = 8 * 1024;
}  // namespace

// A read's recv, made by the read itself and, while it waits, by the event loop as the
// wait's probe (FdProbe): data that arrives while the loop spins is taken by the call that
// finds it, with no epoll call before it (the raw busy-poll loop's one call per message).
struct TcpComm::RecvAttempt {
  int fd;
  std::byte* at;
  size_t room;
  ssize_t got = -1;
  int err = EAGAIN;

  bool finished() const noexcept { return got >= 0 || (err != EAGAIN && err != EWOULDBLOCK); }
  bool attempt() noexcept {
    do got = ::recv(fd, at, room, 0);
    while (got < 0 && errno == EINTR);
    err = got < 0 ? errno : 0;
    return finished();
  }
  static bool probe(void* self) noexcept { return static_cast<RecvAttempt*>(self)->attempt(); }
  FdProbe as_probe() noexcept { return {&RecvAttempt::probe, this}; }
};

size_t TcpComm::taken(const RecvAttempt& r, const char* eof_why) {
  if (r.got > 0) return static_cast<size_t>(r.got);
  if (r.got == 0) fail(eof_why);
  fail(errno_message("recv failed", r.err));
}

TcpComm::TcpComm(EventLoop& loop, int fd, const CommLimits& limits, std::shared_ptr<UringRing> ring)
    : loop_(loop),
      fd_(fd),
      limits_(limits),
      ring_(std::move(ring)),
      local_("tcp://" + format_host_port(local_endpoint(fd).host, local_endpoint(fd).port)),
      peer_("tcp://" + format_host_port(peer_endpoint(fd).host, peer_endpoint(fd).port)),
      write_lock_(loop),
      read_lock_(loop),
      staging_size_(std::max(kStagingBytes, header_bytes(limits.max_frames))) {
  staging_ = std::make_unique<std::byte[]>(staging_size_);
  // Under io_uring the kernel waits for readiness itself (it arms its own poll), so a
  // ring's sockets are blocking: no kernel's reading of O_NONBLOCK can turn that wait
  // into -EAGAIN completions (6.18 waits either way: a recv posted on an idle
  // non-blocking socketpair stayed pending). Nobody waits on them in epoll.
  set_nonblocking(fd_, !ring_);
  set_nodelay(fd_);
  if (!ring_) loop_.watch_fd(fd_);
}

TcpComm::~TcpComm() {
  abort();
}

void TcpComm::check_open(const char* op) const {
  if (fd_ < 0) throw CommClosedError(std::string(op) + " on closed comm " + peer_);
}

void TcpComm::fail(const std::string& why) {
  abort();
  throw CommClosedError("connection to " + peer_ + " " + why);
}

void TcpComm::cancel_ring_ops() noexcept {
#if COMMBENCH_HAVE_URING
  if (ring_) ring_->cancel_fd(fd_);
#endif
}

Task<void> TcpComm::close() {
  if (fd_ >= 0) {
    cancel_ring_ops();
    loop_.unwatch_fd(fd_);
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    fd_ = -1;
  }
  co_return;
}

void TcpComm::abort() noexcept {
  if (fd_ < 0) return;
  cancel_ring_ops();
  loop_.unwatch_fd(fd_);
  linger lg{1, 0};  // reset, do not linger: the peer learns at once
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  ::close(fd_);
  fd_ = -1;
}

namespace {
// Steps `iov` and `count` past the `sent` bytes the kernel took.
void advance(iovec*& iov, size_t& count, size_t sent) noexcept {
  while (count > 0 && sent >= iov->iov_len) {
    sent -= iov->iov_len;
    ++iov;
    --count;
  }
  if (count > 0) {
    iov->iov_base = static_cast<char*>(iov->iov_base) + sent;
    iov->iov_len -= sent;
  }
}
}  // namespace

bool TcpComm::send_ready(iovec*& iov, size_t& count) {
  while (count > 0) {
    check_open("write");
    ssize_t n;
    if (count == 1) {
      n = ::send(fd_, iov->iov_base, iov->iov_len, MSG_NOSIGNAL);
    } else {
      msghdr mh{};
      mh.msg_iov = iov;
      mh.msg_iovlen = std::min<size_t>(count, IOV_MAX);
      n = ::sendmsg(fd_, &mh, MSG_NOSIGNAL);
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      fail(errno_message("send failed", errno));
    }
    advance(iov, count, static_cast<size_t>(n));
  }
  return true;
}

Task<void> TcpComm::send_iov(iovec* iov, size_t count, CancelToken token) {
  while (count > 0) {
    check_open("write");
#if COMMBENCH_HAVE_URING
    if (ring_) {
      msghdr mh{};
      mh.msg_iov = iov;
      mh.msg_iovlen = std::min<size_t>(count, IOV_MAX);
      // MSG_WAITALL: the kernel itself goes on after a partial send of a stream socket,
      // so a message larger than the socket buffer costs one CQE, not one per buffer.
      auto n = co_await ring_->sendmsg(fd_, &mh, MSG_NOSIGNAL | MSG_WAITALL, token);
      if (n < 0) {
        check_open("write");  // aborted under the send: its CQE says -ECANCELED
        if (n == -EINTR || n == -EAGAIN) continue;
        fail(errno_message("send failed", -n));
      }
      advance(iov, count, static_cast<size_t>(n));
      continue;
    }
#endif
    if (!send_ready(iov, count)) co_await loop_.writable(fd_, token);
  }
}

Task<void> TcpComm::write(const Message& msg, CancelToken token) {
  // Started now, as every backend's write is (comm.hpp): it takes the write lock and
  // sends what the socket takes within the call, so writes go out in call order.
  Task<void> t = write_message(msg, token);
  t.start();
  return t;
}

Task<void> TcpComm::write_message(const Message& msg, CancelToken token) {
  auto guard = co_await write_lock_.lock();
  check_open("write");
  const size_t hb = header_bytes(msg.frames.size());
  const size_t total = hb + msg.total_bytes();
  iov_.clear();
  if (total <= kCoalesceBytes) {
    // A small message goes as one buffer, header and frames copied behind each other:
    // one plain send() instead of a gathered sendmsg(), as a raw loop would send it.
    header_out_.resize(total);
    encode_header(msg, {header_out_.data(), hb}, limits_);
    size_t at = hb;
    for (const Buffer& f : msg.frames) {
      if (f.size > 0) std::memcpy(header_out_.data() + at, f.data, f.size);
      at += f.size;
    }
    iov_.push_back({header_out_.data(), total});
  } else {
    header_out_.resize(hb);
    encode_header(msg, header_out_, limits_);
    iov_.push_back({header_out_.data(), hb});
    for (const Buffer& f : msg.frames)
      if (f.size > 0) iov_.push_back({f.data, f.size});
  }
  iovec* iov = iov_.data();
  size_t count = iov_.size();
  if (!ring_ && send_ready(iov, count)) co_return;  // the usual case: the socket took it all
  try {
    co_await send_iov(iov, count, token);
  } catch (const OperationCancelled&) {
    abort();  // part of a message may be on the wire: the stream is no longer usable
    throw;
  }
}

Task<void> TcpComm::fill_staging(size_t want, CancelToken token) {
  if (begin_ > 0 && staging_size_ - begin_ < want) {  // compact
    std::memmove(staging_.get(), staging_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  while (end_ - begin_ < want) {
    check_open("read");
#if COMMBENCH_HAVE_URING
    if (ring_) {
      int n = co_await ring_->recv(fd_, staging_.get() + end_, staging_size_ - end_, 0, token);
      if (n > 0) {
        end_ += static_cast<size_t>(n);
        continue;
      }
      check_open("read");  // aborted under the receive: its CQE says -ECANCELED
      if (n == 0) fail(end_ == begin_ ? "closed by peer" : "closed by peer mid-message");
      if (n == -EINTR || n == -EAGAIN) continue;
      fail(errno_message("recv failed", -n));
    }
#endif
    RecvAttempt r{fd_, staging_.get() + end_, staging_size_ - end_};
    if (!r.attempt()) {
      co_await loop_.readable(fd_, token, r.as_probe());
      if (!r.finished()) continue;  // a hang-up woke it: check_open or the next recv says
    }
    end_ += taken(r, end_ == begin_ ? "closed by peer" : "closed by peer mid-message");
  }
}

bool TcpComm::take_staged(std::byte* out, size_t n) noexcept {
  if (!staged(n)) return false;
  if (n > 0) std::memcpy(out, staging_.get() + begin_, n);
  begin_ += n;
  if (begin_ == end_) begin_ = end_ = 0;
  return true;
}

Task<void> TcpComm::read_into(std::byte* out, size_t n, CancelToken token) {
  size_t from_staging = std::min(n, end_ - begin_);
  if (from_staging > 0) {
    std::memcpy(out, staging_.get() + begin_, from_staging);
    begin_ += from_staging;
    out += from_staging;
    n -= from_staging;
  }
  if (begin_ == end_) begin_ = end_ = 0;
  while (n > 0) {
    if (n < kDirectReadBytes) {  // small remainder: one recv may also bring the next message
      co_await fill_staging(n, token);
      std::memcpy(out, staging_.get() + begin_, n);
      begin_ += n;
      co_return;
    }
    check_open("read");
#if COMMBENCH_HAVE_URING
    if (ring_) {
      // MSG_WAITALL: the whole frame in one CQE (the kernel retries partial receives).
      int got = co_await ring_->recv(fd_, out, n, MSG_WAITALL, token);
      if (got > 0) {
        out += got;
        n -= static_cast<size_t>(got);
        continue;
      }
      check_open("read");
      if (got == 0) fail("closed by peer mid-message");
      if (got == -EINTR || got == -EAGAIN) continue;
      fail(errno_message("recv failed", -got));
    }
#endif
    RecvAttempt r{fd_, out, n};
    if (!r.attempt()) {
      co_await loop_.readable(fd_, token, r.as_probe());
      if (!r.finished()) continue;
    }
    size_t got = taken(r, "closed by peer mid-message");
    out += got;
    n -= got;
  }
}

Task<void> TcpComm::read(Message& into, CancelToken token) {
  auto guard = co_await read_lock_.lock();
  try {
    if (!staged(kFixedHeaderBytes)) co_await fill_staging(kFixedHeaderBytes, token);
    uint32_t count;
    try {
      count = decode_fixed_header({staging_.get() + begin_, kFixedHeaderBytes}, limits_);
      begin_ += kFixedHeaderBytes;
      const size_t descriptors = size_t{count} * kFrameDescriptorBytes;
      if (!staged(descriptors)) co_await fill_staging(descriptors, token);
      decode_frame_descriptors({staging_.get() + begin_, size_t{count} * kFrameDescriptorBytes},
                               count, limits_, frames_in_);
    } catch (const ProtocolError&) {
      abort();  // the stream is out of step; nothing after this can be trusted
      throw;
    }
    begin_ += size_t{count} * kFrameDescriptorBytes;
    into.prepare_frames(count);
    for (uint32_t i = 0; i < count; ++i) {
      Buffer& f = into.prepare_frame(i, frames_in_[i].size, frames_in_[i].kind);
      if (!take_staged(f.bytes(), f.size)) co_await read_into(f.bytes(), f.size, token);
    }
  } catch (const OperationCancelled&) {
    abort();  // a partial message may have been consumed
    throw;
  }
}

Task<void> TcpComm::write_bytes(std::span<const std::byte> bytes, CancelToken token) {
  iovec iov{const_cast<std::byte*>(bytes.data()), bytes.size()};
  co_await send_iov(&iov, 1, token);
}

Task<void> TcpComm::read_bytes(std::span<std::byte> out, CancelToken token) {
  co_await read_into(out.data(), out.size(), token);
}

}  // namespace commbench::tcp
