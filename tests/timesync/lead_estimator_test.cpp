// The lead requirement from hand-made need sequences.
#include "tickwire/timesync/lead_estimator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tickwire::timesync {
namespace {

// One need per 16.667 ms, the feedback rate at 60 Hz.
Time nth(int i) { return Time::from_micros(1'000'000 + static_cast<std::int64_t>(i) * 16667); }

double required_ms(const LeadEstimator& e) { return e.required()->millis_f(); }

// A 20 s tail (1200 needs) keeps these tests short; the default is 2 min.
LeadEstimatorConfig short_tail() {
  LeadEstimatorConfig c;
  c.tail_window = Duration::seconds(20);
  return c;
}

TEST(LeadEstimator, CarriesALearningMarginUntilItHasSeenEnough) {
  LeadEstimatorConfig config;
  LeadEstimator e(config);
  EXPECT_FALSE(e.required().has_value());
  e.add(nth(0), Duration::millis(10));
  EXPECT_NEAR(required_ms(e), 10.0 + config.learning_margin.millis_f(), 1e-9);
  int i = 1;
  for (; nth(i) - nth(0) < config.learning_period; ++i) e.add(nth(i), Duration::millis(10));
  EXPECT_TRUE(e.learning());
  e.add(nth(i++), Duration::millis(10));
  EXPECT_FALSE(e.learning());
  EXPECT_NEAR(required_ms(e), 10.0, 1e-9);
}

TEST(LeadEstimator, SteadyNeedsNeedTheirLargest) {
  LeadEstimator e;
  // A frame-quantization pattern: 10, 12.78, 15.56, 11.39, 14.17 ms.
  const double pattern[] = {10.0, 12.78, 15.56, 11.39, 14.17};
  for (int i = 0; i < 1200; ++i) e.add(nth(i), Duration::micros(std::llround(pattern[i % 5] * 1000)));
  EXPECT_NEAR(e.level().millis_f(), 12.78, 1e-6);
  EXPECT_NEAR(required_ms(e), 15.56, 1e-6);
}

TEST(LeadEstimator, CoversRareEventsMoreFrequentThanItsLateRate) {
  LeadEstimator e(short_tail());  // late rate 1e-3
  // One input in a hundred needs a redundant copy: 16.7 ms more.
  for (int i = 0; i < 1200; ++i) e.add(nth(i), Duration::millis(i % 100 == 50 ? 27 : 10));
  EXPECT_NEAR(required_ms(e), 27.0, 1e-6);
}

TEST(LeadEstimator, IgnoresEventsRarerThanItsLateRate) {
  LeadEstimator e(short_tail());
  // One input in 1200 needs 40 ms more: leaving it late costs less than the
  // late rate allows (1e-3 of 1200 rounds up to two), and it is left.
  for (int i = 0; i < 1200; ++i) e.add(nth(i), Duration::millis(i == 700 ? 50 : 10));
  EXPECT_NEAR(required_ms(e), 10.0, 1e-6);
}

TEST(LeadEstimator, TakesARiseOfEveryRecentNeedAtOnce) {
  LeadEstimatorConfig config;
  LeadEstimator e(config);
  int i = 0;
  for (; i < 900; ++i) e.add(nth(i), Duration::millis(10));
  // A route change: every input now needs 40 ms more. Two needs are not
  // enough to tell it from noise...
  const Time first = nth(i);
  e.add(nth(i++), Duration::millis(50));
  e.add(nth(i++), Duration::millis(50));
  EXPECT_NEAR(e.level().millis_f(), 10.0, 1e-6);
  // ...every need of a rise window is.
  while (nth(i) - first <= config.rise_window) e.add(nth(i++), Duration::millis(50));
  EXPECT_NEAR(e.level().millis_f(), 50.0, 1e-6);
  EXPECT_GE(required_ms(e), 50.0);
}

TEST(LeadEstimator, ADelayStallIsTailNotLevel) {
  LeadEstimator e;
  int i = 0;
  for (; i < 900; ++i) e.add(nth(i), Duration::millis(10));
  // A 100 ms stall holds back the packets behind it: their needs fall by a
  // tick each. The level stays; the tail learns the stall.
  for (int k = 0; k < 6; ++k, ++i) e.add(nth(i), Duration::micros(110'000 - k * 16'667));
  EXPECT_NEAR(e.level().millis_f(), 10.0, 1e-6);
}

TEST(LeadEstimator, RidesOutRareStallsInsteadOfCoveringThem) {
  // A 200 ms stall every 3 s (one report shows it: its inputs arrive
  // together) is far rarer than the lead is worth: covering it would add
  // 200 ms to every frame. The lead stays near the ordinary needs.
  LeadEstimator e;
  for (int i = 0; i < 7200; ++i) e.add(nth(i), Duration::millis(i % 180 == 90 ? 210 : 10 + (i % 3)));
  EXPECT_LT(required_ms(e), 20.0);
}

TEST(LeadEstimator, CoversStallsThatComeSeveralTimesASecond) {
  // The same stalls four times a second are the link's ordinary behaviour:
  // riding them out would leave late inputs all the time.
  LeadEstimator e;
  for (int i = 0; i < 7200; ++i) e.add(nth(i), Duration::millis(i % 15 == 7 ? 210 : 10 + (i % 3)));
  EXPECT_NEAR(required_ms(e), 210.0, 1e-6);
}

TEST(LeadEstimator, FollowsASlowRampWithoutLagging) {
  // Bufferbloat: every need grows by 3 ms a second. A median over 2 s lags
  // by 3 ms; the trend puts the requirement ahead of the newest need.
  LeadEstimator e;
  double newest = 0;
  for (int i = 0; i < 3600; ++i) {
    newest = 10.0 + 3.0 * static_cast<double>(i) / 60.0 + 0.5 * static_cast<double>(i % 4);
    e.add(nth(i), Duration::micros(std::llround(newest * 1000)));
  }
  EXPECT_GT(e.trend(), 2000.0);
  EXPECT_LT(e.trend(), 4000.0);
  EXPECT_GT(required_ms(e), newest);
}

TEST(LeadEstimator, NoTrendOnASteadyLink) {
  LeadEstimator e;
  for (int i = 0; i < 3600; ++i) e.add(nth(i), Duration::micros(10'000 + (i * 7919) % 3000));
  EXPECT_EQ(e.trend(), 0.0);
}

TEST(LeadEstimator, TheTailSurvivesAChangeOfLevel) {
  LeadEstimator e(short_tail());
  int i = 0;
  for (; i < 1200; ++i) e.add(nth(i), Duration::millis(i % 100 == 50 ? 27 : 10));
  const double before = required_ms(e);
  for (int k = 0; k < 600; ++k, ++i) e.add(nth(i), Duration::millis(i % 100 == 50 ? 67 : 50));
  // Forty more for everyone, and still the loss cover on top.
  EXPECT_NEAR(required_ms(e), before + 40.0, 1e-6);
}

TEST(LeadEstimator, ClearForgetsEverything) {
  LeadEstimator e;
  for (int i = 0; i < 100; ++i) e.add(nth(i), Duration::millis(10));
  e.clear();
  EXPECT_FALSE(e.required().has_value());
  EXPECT_EQ(e.samples(), 0u);
}

TEST(LeadEstimator, FollowsTheLevelThroughTimesThatStepBack) {
  // A clock stepping back leaves the samples out of time order for a while
  // (the medians are then taken by selection); once order is back the
  // sorted windows must pick up where the samples are.
  LeadEstimator e(short_tail());
  int i = 0;
  for (; i < 300; ++i) e.add(nth(i), Duration::millis(10));
  EXPECT_NEAR(e.level().millis_f(), 10.0, 1e-9);
  e.add(nth(i - 30), Duration::millis(10));
  for (; i < 400; ++i) e.add(nth(i), Duration::millis(10));
  EXPECT_NEAR(e.level().millis_f(), 10.0, 1e-9);
  // Well after the stepped-back sample has left: a step of every need.
  for (; i < 800; ++i) e.add(nth(i), Duration::millis(30));
  EXPECT_NEAR(e.level().millis_f(), 30.0, 1e-9);
  EXPECT_TRUE(e.settled());
  EXPECT_GE(required_ms(e), 30.0);
  EXPECT_LT(required_ms(e), 30.0 + 25.0);
}

TEST(LeadEstimator, RejectsABadConfig) {
  LeadEstimatorConfig bad;
  bad.target_late_rate = 0;
  EXPECT_THROW(LeadEstimator{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::timesync
