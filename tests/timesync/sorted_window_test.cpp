// The sorted sliding window behind the lead estimator's medians, against a
// selection over the same values.
#include "tickwire/timesync/sorted_window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <iostream>
#include <random>
#include <vector>

namespace tickwire::timesync {
namespace {

TEST(SortedWindow, MatchesSelectionAsTheRangeSlidesJumpsAndShrinks) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "[   SEED   ] " << seed << std::endl;
  std::mt19937_64 rng(seed);
  std::deque<double> values;  // positions popped .. popped + size
  std::uint64_t popped = 0;
  SortedWindow w;
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  for (int step = 0; step < 3000; ++step) {
    // Few distinct values, so that duplicates are common.
    values.push_back(static_cast<double>(rng() % 40));
    if (values.size() > 200 || (values.size() > 1 && rng() % 4 == 0)) {
      w.drop_front(popped, values.front());
      values.pop_front();
      ++popped;
    }
    const std::uint64_t end = popped + values.size();
    lo = std::max(lo, popped);
    switch (rng() % 5) {
      case 0:  // anywhere, often far from the last range
        lo = popped + rng() % values.size();
        hi = lo + rng() % (end - lo + 1);
        break;
      case 1:  // backwards a little
        lo = std::max(popped, lo - std::min<std::uint64_t>(lo, rng() % 3));
        hi = std::max(lo, hi - std::min<std::uint64_t>(hi, rng() % 3));
        break;
      default:  // forwards, the usual case
        hi = end;
        lo = std::min(end, lo + rng() % 3);
        break;
    }
    w.move_to(lo, hi, [&](std::uint64_t p) { return values[static_cast<std::size_t>(p - popped)]; });
    ASSERT_EQ(w.lo(), lo);
    ASSERT_EQ(w.hi(), hi);
    std::vector<double> expected(values.begin() + static_cast<std::ptrdiff_t>(lo - popped),
                                 values.begin() + static_cast<std::ptrdiff_t>(hi - popped));
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(w.sorted(), expected) << "step " << step;
    if (expected.size() >= 2) {
      const std::size_t cut = rng() % expected.size();
      const std::vector<double> a(w.sorted().begin(), w.sorted().begin() + static_cast<std::ptrdiff_t>(cut));
      const std::vector<double> b(w.sorted().begin() + static_cast<std::ptrdiff_t>(cut), w.sorted().end());
      const std::size_t k = rng() % expected.size();
      ASSERT_EQ(kth_of_two(b, a, k), expected[k]) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace tickwire::timesync
