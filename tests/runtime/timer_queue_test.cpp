#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "runtime/timer_queue.hpp"

using namespace commbench;

TEST(TimerQueue, PopsInDeadlineOrderWithRemovals) {
  std::mt19937 rng(42);
  std::vector<TimerNode> nodes(500);
  TimerQueue q;
  for (auto& n : nodes) {
    n.deadline_ns = rng() % 10000;
    q.push(&n);
  }
  for (size_t i = 0; i < nodes.size(); i += 3) q.remove(&nodes[i]);
  std::vector<uint64_t> got;
  while (TimerNode* n = q.pop_expired(~0ull)) got.push_back(n->deadline_ns);
  std::vector<uint64_t> want;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (i % 3 != 0) want.push_back(nodes[i].deadline_ns);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_TRUE(q.empty());
}

TEST(TimerQueue, PopExpiredRespectsNow) {
  TimerQueue q;
  TimerNode a, b;
  a.deadline_ns = 10;
  b.deadline_ns = 20;
  q.push(&b);
  q.push(&a);
  EXPECT_EQ(q.pop_expired(15), &a);
  EXPECT_EQ(q.pop_expired(15), nullptr);
  EXPECT_FALSE(a.queued());
  EXPECT_TRUE(b.queued());
  q.remove(&b);
  q.remove(&b);  // removing twice is harmless
  EXPECT_TRUE(q.empty());
}
