#include "runtime/handoff.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/event_loop.hpp"

namespace commbench {

Handoff::Handoff(EventLoop& loop, const char* name) : loop_(loop), name_(name) {
  efd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  loop_.add_poller(this);
}

Handoff::~Handoff() {
  loop_.remove_poller(this);
  ::close(efd_);
}

void Handoff::post(HandoffNode* n) noexcept {
  posted_.push(n);
  // Only an armed loop needs the system call; the exchange makes one producer its waker.
  if (sleeping_.load(std::memory_order_seq_cst) &&
      sleeping_.exchange(false, std::memory_order_seq_cst)) {
    uint64_t one = 1;
    ssize_t w = ::write(efd_, &one, sizeof one);
    (void)w;  // EAGAIN only when the counter is saturated: the loop is woken anyway
    wakes_.fetch_add(1, std::memory_order_relaxed);
  }
}

size_t Handoff::take(const HandoffNode* skip) {
  size_t count = 0;
  for (HandoffNode* n = posted_.take_all(); n;) {
    HandoffNode* next = n->next;  // the resumed coroutine may reuse its node
    if (n != skip) {
      loop_.schedule(n->handle);
      ++count;
    }
    n = next;
  }
  handed_ += count;
  return count;
}

ArmResult Handoff::try_arm() {
  sleeping_.store(true, std::memory_order_seq_cst);
  if (!posted_.empty_seq_cst()) {
    sleeping_.store(false, std::memory_order_relaxed);
    return ArmResult::busy;
  }
  return ArmResult::armed;
}

void Handoff::on_wake() noexcept {
  uint64_t v;
  while (::read(efd_, &v, sizeof v) > 0) {
  }
  sleeping_.store(false, std::memory_order_relaxed);
}

}  // namespace commbench
