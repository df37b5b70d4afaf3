// The lead estimator's sorted tail against std::multiset (the same values
// in the same order after any mix of inserts and erases, and the same
// cut), and the interpolation delay's early-stopping grid walk against the
// whole walk.
#include "tickwire/timesync/sorted_bag.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <iostream>
#include <iterator>
#include <random>
#include <set>
#include <vector>

#include "tickwire/timesync/rare_event_cut.h"

namespace tickwire::timesync {
namespace {

std::vector<double> descending(const SortedBag& bag) {
  std::vector<double> out;
  for (auto it = bag.largest_first(); it != bag.end(); ++it) out.push_back(*it);
  return out;
}

TEST(SortedBag, MatchesMultisetThroughInsertsErasesAndSplits) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "[   SEED   ] " << seed << std::endl;
  std::mt19937_64 rng(seed);
  SortedBag bag;
  std::multiset<double> expected;
  std::deque<double> order;  // arrival order, erased oldest first like the tail
  for (int step = 0; step < 20000; ++step) {
    // Runs of few distinct values (duplicates across block edges) and of
    // many, growing past several splits, then shrinking to empty.
    const bool growing = (step / 5000) % 2 == 0;
    const double v = (step / 2500) % 2 == 0 ? static_cast<double>(rng() % 30) - 10.0
                                            : static_cast<double>(rng() % 100000) / 7.0 - 3000.0;
    if (growing || order.empty() || rng() % 3 == 0) {
      bag.insert(v);
      expected.insert(v);
      order.push_back(v);
    }
    if (!order.empty() && (!growing || rng() % 3 == 0)) {
      ASSERT_TRUE(bag.erase(order.front()));
      expected.erase(expected.find(order.front()));
      order.pop_front();
    }
    ASSERT_EQ(bag.size(), expected.size());
    if (step % 97 == 0 || bag.size() < 3) {
      ASSERT_EQ(descending(bag), std::vector<double>(expected.rbegin(), expected.rend())) << "step " << step;
    }
    if (!expected.empty()) {
      const std::size_t k = 1 + rng() % expected.size();
      ASSERT_EQ(bag.kth_largest(k), *std::next(expected.rbegin(), static_cast<std::ptrdiff_t>(k - 1)));
      const std::size_t rank = 1 + rng() % 20;
      ASSERT_EQ(cheapest_cut(bag.largest_first(), bag.end(), rank, 100000.0, 30.0, 0.0),
                cheapest_cut(expected.rbegin(), expected.rend(), rank, 100000.0, 30.0, 0.0));
    }
  }
}

TEST(SortedBag, EraseOfAnAbsentValueChangesNothing) {
  SortedBag bag;
  EXPECT_FALSE(bag.erase(1.0));
  bag.insert(2.0);
  bag.insert(2.0);
  EXPECT_FALSE(bag.erase(1.0));
  EXPECT_FALSE(bag.erase(3.0));
  EXPECT_EQ(bag.size(), 2U);
  EXPECT_TRUE(bag.erase(2.0));
  EXPECT_EQ(descending(bag), std::vector<double>{2.0});
  bag.clear();
  EXPECT_TRUE(bag.empty());
  EXPECT_EQ(bag.largest_first(), bag.end());
}

}  // namespace
}  // namespace tickwire::timesync

namespace tickwire::timesync {
namespace {

// The interpolation delay's grid walk stops early; it must pick what the
// whole walk picks. Starved time as the estimator sums it, over random
// windows of hold-ups (many small, a few long, some never on screen).
TEST(CheapestDelay, StoppingEarlyPicksWhatTheWholeGridPicks) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "[   SEED   ] " << seed << std::endl;
  std::mt19937_64 rng(seed);
  struct Interval {
    double age_us;
    double length_us;
    double frame_us;
  };
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::size_t early_calls = 0;
  std::size_t whole_calls = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<Interval> intervals(50 + rng() % 2000);
    const double frame = (rng() % 4 == 0) ? 0.0 : 1e6 / static_cast<double>(30 + rng() % 115);
    for (Interval& i : intervals) {
      const bool rare = rng() % 50 == 0;
      i.age_us = rng() % 40 == 0 ? -1e12 : 20000.0 + unit(rng) * (rare ? 400000.0 : 30000.0);
      i.length_us = unit(rng) * (rare ? 300000.0 : 17000.0);
      i.frame_us = frame;
    }
    auto starved = [&](double delay) {
      double sum = 0;
      for (const Interval& i : intervals) {
        const double over = i.age_us - delay;
        if (over <= 0) continue;
        const double frames_time = i.frame_us > 0 ? i.frame_us * std::ceil(over / i.frame_us) : over;
        sum += std::min(i.length_us, frames_time);
      }
      return sum;
    };
    double total = 0;
    for (const Interval& i : intervals) total += i.length_us;
    const double target = 50000.0 + unit(rng) * 400000.0;
    const double low = 20000.0 + unit(rng) * 30000.0;
    const double step = std::max(1000.0, (target - low) / 64);
    const double per_share = static_cast<double>(rng() % 40000) * 100.0;
    std::size_t calls = 0;
    auto counted = [&](double delay) {
      ++calls;
      return starved(delay);
    };
    const double early = cheapest_delay(target, low, step, per_share, total, counted);
    early_calls += calls;
    calls = 0;
    ASSERT_EQ(early, cheapest_delay(target, low, step, per_share, total, counted, true)) << "round " << round;
    whole_calls += calls;
  }
  // Not vacuous: the walk did stop early.
  EXPECT_LT(early_calls, whole_calls);
}

}  // namespace
}  // namespace tickwire::timesync
