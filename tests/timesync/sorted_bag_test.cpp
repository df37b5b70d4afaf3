// The lead estimator's sorted tail against std::multiset: the same values
// in the same order after any mix of inserts and erases, and the same cut.
#include "tickwire/timesync/sorted_bag.h"

#include <gtest/gtest.h>

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
