// The Handoff (runtime/handoff.hpp): completions posted from other threads reach the
// loop's waiters exactly once whatever the interleaving, and a post wakes a loop that is
// armed and asleep in epoll (the Dekker pair between post() and try_arm()). Threads meet
// here, so the tsan preset runs these (CMakePresets.json): the producers write plain data
// before they post and the waiters read it after they resume, and TSan checks that the
// handoff alone orders the two.
#include "runtime/handoff.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <coroutine>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/event_loop.hpp"
#include "runtime/task.hpp"
#include "runtime/when_all.hpp"

using namespace commbench;
using namespace std::chrono_literals;

namespace {

// One waiter: the node it is posted with, and what its producer wrote for it.
struct Slot {
  HandoffNode node;
  int round = 0;          // the loop's: the round the waiter now waits for
  int posted_round = -1;  // the producer's: written before post(), read after resumption
  int resumes = 0;        // the loop's
};

// The test's own channel from the loop's thread to one producer (a waiter announces that
// it is suspended). A mutex is fine here: the direction under test, producer to loop,
// goes through the Handoff alone.
class Inbox {
 public:
  void put(Slot* s) {
    std::lock_guard lock(m_);
    slots_.push_back(s);
  }
  std::vector<Slot*> take() {
    std::vector<Slot*> out;
    std::lock_guard lock(m_);
    out.swap(slots_);
    return out;
  }

 private:
  std::mutex m_;
  std::vector<Slot*> slots_;
};

// Awaitable: suspends until a producer posts the slot.
struct AwaitPost {
  Handoff& h;
  Slot& s;
  Inbox& inbox;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> c) {
    s.node.handle = c;
    h.expect();
    // From here a producer may post at once; the loop resumes us on a later turn only.
    inbox.put(&s);
  }
  void await_resume() noexcept { h.unexpect(); }
};

Task<void> waiter(Handoff& h, Slot& s, Inbox& inbox, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    s.round = r;
    co_await AwaitPost{h, s, inbox};
    ++s.resumes;
    // A missed, repeated or stale post shows here (and a double resumption would
    // resume a coroutine that is not suspended: a crash, or a round out of step).
    EXPECT_EQ(s.posted_round, r);
  }
}

// A producer thread: posts every slot its inbox hands it, after `delay(i)` for the i-th.
template <typename Delay>
std::thread producer(Handoff& h, Inbox& inbox, std::atomic<bool>& stop, Delay delay) {
  return std::thread([&h, &inbox, &stop, delay] {
    unsigned i = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      auto batch = inbox.take();
      if (batch.empty()) {
        std::this_thread::yield();
        continue;
      }
      for (Slot* s : batch) {
        delay(i++);
        s->posted_round = s->round;
        h.post(&s->node);
      }
    }
  });
}

// Turns the loop until `task` finishes or `limit` passes; a timer bounds every epoll sleep.
bool turn_until_done(EventLoop& loop, Task<void>& task, std::chrono::nanoseconds limit) {
  bool fired = false;
  TimerNode watchdog;
  watchdog.owner = &fired;
  watchdog.fire = [](TimerNode* n) { *static_cast<bool*>(n->owner) = true; };
  loop.add_timer(&watchdog, EventLoop::now_ns() + static_cast<uint64_t>(limit.count()));
  while (!task.handle().done() && !fired) loop.run_once();
  if (!fired) loop.cancel_timer(&watchdog);
  return task.handle().done();
}

// Runs the loop until `task` finishes, at most `limit`; false if it did not, so a lost
// wake-up fails the test instead of hanging it. After a failure the loop turns on a
// while (bounded): a post whose wake-up was lost is still on the stack, and its waiter
// must resume before the test destroys the frames that the stack points into.
bool run_bounded(EventLoop& loop, Task<void>& task, std::chrono::nanoseconds limit) {
  loop.schedule(task.handle());
  if (turn_until_done(loop, task, limit)) return true;
  for (int i = 0; i < 100 && !task.handle().done(); ++i) turn_until_done(loop, task, 10ms);
  return false;
}

TEST(Handoff, ManyProducersResumeEveryWaiterExactlyOnce) {
  constexpr int kProducers = 4, kWaitersEach = 16, kRounds = 300;
  EventLoop loop;
  Handoff h(loop, "test-handoff");
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<Inbox>> inboxes;
  std::vector<Slot> slots(kProducers * kWaitersEach);
  std::vector<Task<void>> waiters;
  for (int p = 0; p < kProducers; ++p) {
    inboxes.push_back(std::make_unique<Inbox>());
    for (int w = 0; w < kWaitersEach; ++w)
      waiters.push_back(waiter(h, slots[p * kWaitersEach + w], *inboxes.back(), kRounds));
  }
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    // Every 64th post comes late, so the loop also arms and sleeps in between.
    threads.push_back(producer(h, *inboxes[p], stop, [](unsigned i) {
      if (i % 64 == 63) std::this_thread::sleep_for(100us);
    }));
  }
  Task<void> all = when_all(std::move(waiters));
  bool finished = run_bounded(loop, all, 60s);
  stop.store(true);
  for (auto& t : threads) t.join();
  ASSERT_TRUE(finished) << "waiters still suspended after 60 s: a post was lost";
  for (const Slot& s : slots) EXPECT_EQ(s.resumes, kRounds);
  EXPECT_EQ(h.stats().handed, uint64_t{kProducers} * kWaitersEach * kRounds);
  EXPECT_EQ(h.expected(), 0u);
  EXPECT_FALSE(h.pending());
}

TEST(Handoff, PostWakesAnArmedLoop) {
  EventLoop loop;
  Handoff h(loop, "test-handoff");
  Inbox inbox;
  Slot s;
  std::atomic<bool> stop{false};
  // 50 ms: the loop has long armed the handoff and blocked in epoll (a waiter expected
  // makes it arm at once, with no spin) before the post comes.
  std::thread t = producer(h, inbox, stop, [](unsigned) { std::this_thread::sleep_for(50ms); });
  Task<void> one = waiter(h, s, inbox, 1);
  auto start = std::chrono::steady_clock::now();
  bool finished = run_bounded(loop, one, 10s);
  auto took = std::chrono::steady_clock::now() - start;
  stop.store(true);
  t.join();
  ASSERT_TRUE(finished) << "the post did not wake the loop";
  EXPECT_EQ(s.resumes, 1);
  EXPECT_GE(loop.stats().blocks, 1u);  // it was asleep in epoll...
  EXPECT_EQ(h.stats().wakes, 1u);      // ...and the post woke it through the eventfd
  EXPECT_LT(took, 5s);                 // not the watchdog
}

// A poller that, when the loop arms it, has another thread post `slot` and waits until
// it has: a post that lands at an exact point of the loop's arming sequence (pollers arm
// in registration order).
class PostOnArm final : public Poller {
 public:
  void post_when_armed(Handoff* h, Slot* s) noexcept {
    h_ = h;
    slot_ = s;
  }
  const char* name() const noexcept override { return "post-on-arm"; }
  bool has_work() const noexcept override { return slot_ != nullptr; }
  bool poll() override { return false; }
  ArmResult try_arm() override {
    if (Slot* s = std::exchange(slot_, nullptr)) {
      Handoff* h = h_;
      std::thread([h, s] {
        s->posted_round = s->round;
        h->post(&s->node);
      }).join();
    }
    return ArmResult::armed;
  }

 private:
  Handoff* h_ = nullptr;
  Slot* slot_ = nullptr;
};

// Awaitable: suspends until `hook` has the slot posted during the loop's next arming.
struct AwaitPostOnArm {
  Handoff& h;
  Slot& s;
  PostOnArm& hook;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> c) {
    s.node.handle = c;
    h.expect();
    hook.post_when_armed(&h, &s);
  }
  void await_resume() noexcept { h.unexpect(); }
};

Task<void> waiter_on_arm(Handoff& h, Slot& s, PostOnArm& hook, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    s.round = r;
    co_await AwaitPostOnArm{h, s, hook};
    ++s.resumes;
    EXPECT_EQ(s.posted_round, r);
  }
}

TEST(Handoff, PostDuringTheArmingIsNeverLost) {
  // Both halves of the Dekker pair (handoff.hpp): a post after the loop's last poll but
  // before the Handoff arms must make try_arm say busy (the loop must not sleep on it);
  // a post after the Handoff armed, before epoll, must write the eventfd. Either miss
  // leaves the loop asleep until the watchdog.
  constexpr int kRounds = 20;
  for (bool before_handoff : {true, false}) {
    SCOPED_TRACE(before_handoff ? "posted before the handoff arms" : "posted after it armed");
    EventLoop loop;
    PostOnArm hook;
    std::optional<Handoff> h;
    // Pollers arm in the order they were registered.
    if (before_handoff) loop.add_poller(&hook);
    h.emplace(loop, "test-handoff");
    if (!before_handoff) loop.add_poller(&hook);
    Slot s;
    Task<void> rounds = waiter_on_arm(*h, s, hook, kRounds);
    bool finished = run_bounded(loop, rounds, 10s);
    loop.remove_poller(&hook);
    ASSERT_TRUE(finished) << "a post was lost: the loop slept through it";
    EXPECT_EQ(s.resumes, kRounds);
    if (before_handoff) {
      EXPECT_EQ(h->stats().wakes, 0u);  // seen by try_arm: no sleep, no eventfd
    } else {
      EXPECT_EQ(h->stats().wakes, uint64_t{kRounds});  // each woke the armed loop
    }
  }
}

TEST(Handoff, PostsRacingTheArmingAreNeverLost) {
  // Posts at every distance from the loop's arming, as the machine's timing makes them:
  // at once, after a few microseconds, and after the loop sleeps. A round that lost its
  // wake-up waits for the watchdog and fails. (Timing alone rarely lands a post inside
  // the arming; PostDuringTheArmingIsNeverLost puts one there on purpose.) Both ways a
  // loop may wait: asleep as soon as it is idle (the default while a waiter is
  // expected), and spinning its budget first (set_sleep_while_expecting(false)).
  constexpr int kRounds = 400;
  for (bool sleep_at_once : {true, false}) {
    SCOPED_TRACE(sleep_at_once ? "sleeps at once" : "spins first");
    EventLoop loop;
    Handoff h(loop, "test-handoff");
    h.set_sleep_while_expecting(sleep_at_once);
    Inbox inbox;
    Slot s;
    std::atomic<bool> stop{false};
    std::thread t = producer(h, inbox, stop, [](unsigned i) {
      if (i % 8 == 7) {
        std::this_thread::sleep_for(200us);  // past the spin budget: the loop sleeps
        return;
      }
      // Spin 0 to ~30 us, in steps finer than the loop's path from its last poll to epoll.
      auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(500 * (i % 64));
      while (std::chrono::steady_clock::now() < until) {
      }
    });
    Task<void> rounds = waiter(h, s, inbox, kRounds);
    bool finished = run_bounded(loop, rounds, 60s);
    stop.store(true);
    t.join();
    ASSERT_TRUE(finished) << "a wake-up was lost: the loop slept through a post";
    EXPECT_EQ(s.resumes, kRounds);
    EXPECT_GE(loop.stats().blocks, 1u);
    EXPECT_GE(h.stats().wakes, 1u);
    EXPECT_LE(h.stats().wakes, uint64_t{kRounds});
  }
}

}  // namespace
