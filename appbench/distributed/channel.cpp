#include "distributed/channel.hpp"

#include <set>

namespace commbench::app {

void ChannelSet::abort_all() noexcept {
  for (Channel* ch : live_) ch->abort();
}

std::vector<std::string> ChannelSet::transports() const {
  std::set<std::string> all;
  for (Channel* ch : live_)
    for (auto& t : ch->comm().transports()) all.insert(std::move(t));
  return {all.begin(), all.end()};
}

bool peer_is_gone(const std::exception& e) noexcept {
  return dynamic_cast<const CommClosedError*>(&e) || dynamic_cast<const ConnectError*>(&e);
}

Channel::Channel(ChannelSet& set, std::unique_ptr<Comm> comm)
    : set_(set), comm_(set.wrap(std::move(comm))), write_lock_(set.loop()) {
  set_.add(this);
}

Channel::~Channel() {
  set_.remove(this);
}

Task<void> Channel::send_encoded(std::vector<std::byte> head, std::vector<Buffer> bulk) {
  Message m;
  m.frames.reserve(1 + bulk.size());
  m.frames.push_back(Buffer{head.data(), head.size(), MemoryKind::host});
  for (const Buffer& b : bulk) m.frames.push_back(b);
  auto guard = co_await write_lock_.lock();
  co_await comm_->write(m);
}

Task<ControlMessage> Channel::recv(Message& into, CancelToken token) {
  co_await comm_->read(into, token);
  if (into.frames.empty()) throw ProtocolError("message without a control frame from " + peer());
  const Buffer& f = into.frames[0];
  co_return decode({f.bytes(), f.size});
}

Task<std::unique_ptr<Channel>> ConnectionPool::acquire(const std::string& address) {
  auto& idle = idle_[address];
  while (!idle.empty()) {
    auto ch = std::move(idle.back());
    idle.pop_back();
    if (!ch->closed()) co_return ch;
  }
  auto comm = co_await connector_.connect(address, timeout_);
  auto ch = std::make_unique<Channel>(channels_, std::move(comm));
  co_await ch->send(me_);
  ++opened_;
  co_return ch;
}

void ConnectionPool::release(const std::string& address, std::unique_ptr<Channel> ch) {
  if (ch && !ch->closed()) idle_[address].push_back(std::move(ch));
}

}  // namespace commbench::app
