// Every open channel of one rank. A rank's connections are owned in different places --
// the scheduler's table of workers, a worker's pool, and the frames of coroutines that
// serve an accepted connection -- and some of those owners sit suspended in a read when
// the run ends. Teardown aborts all of them through this one list: each pending read
// then fails with CommClosedError, its coroutine unwinds on the loop, and only after that
// are the owners destroyed (destroying a comm with a reader still suspended on it leaves
// a coroutine that resumes into freed memory).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace commbench {
class EventLoop;
class Comm;
}

namespace commbench::app {

class Channel;

class ChannelSet {
 public:
  explicit ChannelSet(EventLoop& loop) : loop_(loop) {}
  ChannelSet(const ChannelSet&) = delete;
  ChannelSet& operator=(const ChannelSet&) = delete;

  EventLoop& loop() const noexcept { return loop_; }
  // Channel registers itself for its lifetime.
  void add(Channel* ch) { live_.insert(ch); }
  void remove(Channel* ch) noexcept { live_.erase(ch); }
  // Aborts every channel (no I/O; the peers see a reset). Channels stay registered until
  // their owners destroy them.
  void abort_all() noexcept;
  // A decorator every channel of this rank puts around its comm, on both ends alike (the
  // app's device path: a staging comm for device frames); unset = the comm as it is. Set
  // before the first channel is made.
  using CommWrapper = std::function<std::unique_ptr<Comm>(std::unique_ptr<Comm>)>;
  void set_wrapper(CommWrapper wrap) { wrap_ = std::move(wrap); }
  std::unique_ptr<Comm> wrap(std::unique_ptr<Comm> comm) const {
    return wrap_ ? wrap_(std::move(comm)) : std::move(comm);
  }
  // Every transport the open channels travel on (Comm::transports()), sorted, without
  // repeats: run metadata, not for hot paths.
  std::vector<std::string> transports() const;

 private:
  EventLoop& loop_;
  std::unordered_set<Channel*> live_;
  CommWrapper wrap_;
};

}  // namespace commbench::app
