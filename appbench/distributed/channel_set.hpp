// Every open channel of one rank. A rank's connections are owned in different places --
// the scheduler's table of workers, a worker's pool, and the frames of coroutines that
// serve an accepted connection -- and some of those owners sit suspended in a read when
// the run ends. Teardown aborts all of them through this one list: each pending read
// then fails with CommClosedError, its coroutine unwinds on the loop, and only after that
// are the owners destroyed (destroying a comm with a reader still suspended on it leaves
// a coroutine that resumes into freed memory).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

namespace commbench {
class EventLoop;
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
  // Every transport the open channels travel on (Comm::transports()), sorted, without
  // repeats: run metadata, not for hot paths.
  std::vector<std::string> transports() const;

 private:
  EventLoop& loop_;
  std::unordered_set<Channel*> live_;
};

}  // namespace commbench::app
