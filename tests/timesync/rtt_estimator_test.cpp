// Round-trip, jitter and windowed-minimum estimators on hand-made sequences.
#include "tickwire/timesync/rtt_estimator.h"

#include <gtest/gtest.h>

#include "tickwire/timesync/jitter_estimator.h"
#include "tickwire/timesync/windowed_min.h"

namespace tickwire::timesync {
namespace {

Time at_ms(std::int64_t ms) { return Time::from_micros(ms * 1000); }

TEST(WindowedMin, KeepsTheMinimumOfTheWindowOnly) {
  WindowedMin<int> m(Duration::seconds(10), 10);
  EXPECT_FALSE(m.min(at_ms(0)).has_value());
  m.add(at_ms(0), 50);
  m.add(at_ms(1000), 20);
  m.add(at_ms(5000), 30);
  EXPECT_EQ(m.min(at_ms(5000)), 20);
  // 20 leaves the window once its slice is more than 10 s old.
  EXPECT_EQ(m.min(at_ms(10500)), 20);
  EXPECT_EQ(m.min(at_ms(11000)), 30);
  EXPECT_EQ(m.min(at_ms(15000)), std::nullopt);
}

TEST(WindowedMin, RejectsAnEmptyWindow) {
  EXPECT_THROW(WindowedMin<int>(Duration::zero(), 4), std::invalid_argument);
  EXPECT_THROW(WindowedMin<int>(Duration::seconds(1), 0), std::invalid_argument);
}

TEST(RttEstimator, FollowsRfc6298) {
  RttEstimator e;
  ASSERT_TRUE(e.add(at_ms(0), Duration::millis(100)));
  EXPECT_EQ(e.smoothed(), Duration::millis(100));
  EXPECT_EQ(e.deviation(), Duration::millis(50));
  ASSERT_TRUE(e.add(at_ms(10), Duration::millis(60)));
  // deviation = 3/4 * 50 + 1/4 * |100 - 60| = 47.5; mean = 7/8 * 100 + 1/8 * 60 = 95
  EXPECT_EQ(e.deviation(), Duration::micros(47500));
  EXPECT_EQ(e.smoothed(), Duration::millis(95));
  EXPECT_EQ(e.latest(), Duration::millis(60));
  EXPECT_EQ(e.samples(), 2u);
}

TEST(RttEstimator, MinimumIsBlindToSpikesAndForgetsAfterItsWindow) {
  RttEstimator e;  // 10 s window
  for (int i = 0; i < 100; ++i) {
    const auto rtt = Duration::millis(i % 10 == 0 ? 300 : 40 + i % 3);
    e.add(at_ms(i * 16), rtt);
  }
  EXPECT_EQ(e.min(), Duration::millis(40));
  EXPECT_GT(e.smoothed(), Duration::millis(50));  // the mean feels the spikes
  // A route change to 80 ms: the old minimum ages out after the window.
  for (int i = 0; i < 800; ++i) e.add(at_ms(2000 + i * 16), Duration::millis(80));
  EXPECT_EQ(e.min(), Duration::millis(80));
}

TEST(RttEstimator, RejectsSamplesOutsideItsBounds) {
  RttEstimator e;
  EXPECT_FALSE(e.add(at_ms(0), Duration::millis(-1)));
  EXPECT_FALSE(e.add(at_ms(0), Duration::seconds(11)));
  EXPECT_FALSE(e.has_sample());
  EXPECT_EQ(e.rejected(), 2u);
  EXPECT_EQ(e.min(), Duration::zero());
}

TEST(JitterEstimator, ConstantTransitHasNoJitter) {
  JitterEstimator j;
  for (int i = 0; i < 100; ++i) j.add(12345.0);
  EXPECT_EQ(j.jitter(), Duration::zero());
}

TEST(JitterEstimator, ConvergesToTheMeanTransitChange) {
  JitterEstimator j;
  // Transit alternating 20 and 24 ms: every change is 4 ms.
  for (int i = 0; i < 400; ++i) j.add(i % 2 == 0 ? 20000.0 : 24000.0);
  EXPECT_NEAR(static_cast<double>(j.jitter().micros()), 4000.0, 10.0);
  j.clear();
  EXPECT_EQ(j.jitter(), Duration::zero());
}

}  // namespace
}  // namespace tickwire::timesync
