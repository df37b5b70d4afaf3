// The steering law and the target filter.
#include "tickwire/timesync/steering.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;
NetworkTime ms(double v) { return NetworkTime::from_duration(kRate, Duration::micros(std::llround(v * 1000))); }
double ms_of(const NetworkTime& t) { return t.seconds() * 1000; }
constexpr Duration kFrame = Duration::micros(6944);

TEST(Steering, SpeedsUpInProportionAndWithinBounds) {
  SteeringConfig config;  // gain 2/s, +10% / -5%, bands 0.5 / 3 ms
  Steering s(config);
  NetworkTime t = ms(1000);
  // 5 ms behind: 2/s x 4.5 ms = 0.9% faster.
  ASSERT_FALSE(s.advance(t, ms(1005) + kFrame, kFrame, 1.0));
  EXPECT_NEAR(s.correction(), 0.009, 1e-4);
  EXPECT_NEAR(ms_of(t), 1000 + 6.944 * 1.009, 0.002);
  // 9 ms behind would ask 1.7%; still under the 10% bound. At 200 ms it
  // would be bounded, but that is far past the reset threshold.
  NetworkTime u = ms(1000);
  ASSERT_FALSE(s.advance(u, ms(1009) + kFrame, kFrame, 1.0));
  EXPECT_NEAR(s.correction(), 0.017, 1e-4);
}

TEST(Steering, TheDeadBandIsWiderOnTheCheapSide) {
  Steering s(SteeringConfig{});
  NetworkTime t = ms(1000);
  ASSERT_FALSE(s.advance(t, ms(1000.4) + kFrame, kFrame, 1.0));  // behind by 0.4: inside the 0.5 ms band
  EXPECT_EQ(s.correction(), 0.0);
  t = ms(1000);
  ASSERT_FALSE(s.advance(t, ms(997.5) + kFrame, kFrame, 1.0));  // ahead by 2.5: inside the 3 ms band
  EXPECT_EQ(s.correction(), 0.0);
  t = ms(1000);
  ASSERT_FALSE(s.advance(t, ms(1001) + kFrame, kFrame, 1.0));  // behind by 1: outside the 0.5 ms band
  EXPECT_GT(s.correction(), 0.0);
  t = ms(1000);
  ASSERT_FALSE(s.advance(t, ms(996) + kFrame, kFrame, 1.0));  // ahead by 4
  EXPECT_LT(s.correction(), 0.0);
}

TEST(Steering, ConvergesWithoutOvershootEvenOverLongFrames) {
  SteeringConfig config;
  config.max_speedup = 1.0;  // let the gain alone decide
  Steering s(config);
  NetworkTime t = ms(1000);
  NetworkTime target = ms(1008);
  double previous_error = 8;
  for (int i = 0; i < 200; ++i) {
    const Duration frame = i % 10 == 0 ? Duration::millis(700) : kFrame;  // some very long frames
    target += frame;
    ASSERT_FALSE(s.advance(t, target, frame, 1.0));
    const double error = ms_of(target) - ms_of(t);
    EXPECT_GE(error, 0.5 - 0.002) << "overshot at step " << i;
    EXPECT_LE(error, previous_error + 0.002);
    previous_error = error;
  }
  EXPECT_NEAR(previous_error, 0.5, 0.01);
}

TEST(Steering, BaseRateCarriesDriftWithoutCorrection) {
  Steering s(SteeringConfig{});
  NetworkTime t = ms(1000);
  double target_ms = 1000;
  for (int i = 0; i < 1000; ++i) {
    target_ms += 6.944 * 0.999;
    ASSERT_FALSE(s.advance(t, ms(target_ms), kFrame, 0.999));
    EXPECT_EQ(s.correction(), 0.0);
  }
  EXPECT_NEAR(ms_of(t), target_ms, 0.01);
}

TEST(Steering, JumpsWhenFarBehindTheUrgentTargetOnly) {
  Steering s(SteeringConfig{});  // reset 10 ms behind, 250 ms ahead
  NetworkTime t = ms(1000);
  // 40 ms behind the target, but the urgent part is only 2 ms ahead of us:
  // steer, do not jump.
  EXPECT_FALSE(s.advance(t, ms(1040) + kFrame, kFrame, 1.0, ms(1002) + kFrame));
  EXPECT_NEAR(s.correction(), 2.0 * 0.0395, 1e-6);  // gain x (40 - 0.5) ms
  // Behind the urgent target by 20 ms: jump, to the whole target.
  t = ms(1000);
  EXPECT_TRUE(s.advance(t, ms(1040) + kFrame, kFrame, 1.0, ms(1020) + kFrame));
  EXPECT_EQ(t, ms(1040) + kFrame);
  // Far ahead: jump back.
  t = ms(1000);
  EXPECT_TRUE(s.advance(t, ms(700) + kFrame, kFrame, 1.0));
  EXPECT_EQ(t, ms(700) + kFrame);
}

TEST(Steering, HardResetOnlyNeverScalesTime) {
  SteeringConfig config;
  config.hard_reset_only = true;
  Steering s(config);
  NetworkTime t = ms(1000);
  NetworkTime target = ms(1005);
  for (int i = 0; i < 100; ++i) {
    const NetworkTime before = t;
    target += kFrame;
    const bool reset = s.advance(t, target, kFrame, 0.999);  // the base rate is ignored too
    EXPECT_FALSE(reset);
    EXPECT_EQ(s.correction(), 0.0);
    EXPECT_EQ(t, before + kFrame);
  }
  // With the target itself past the threshold, it jumps.
  EXPECT_TRUE(s.advance(t, target + Duration::millis(20), kFrame, 1.0));
}

TEST(Steering, RejectsABadConfig) {
  SteeringConfig bad;
  bad.reset_behind = Duration::micros(100);  // inside the dead band
  EXPECT_THROW(Steering{bad}, std::invalid_argument);
  bad = SteeringConfig{};
  bad.gain_per_second = 0;
  EXPECT_THROW(Steering{bad}, std::invalid_argument);
}

Time sec(double s) { return Time::from_micros(std::llround(s * 1e6)); }

TEST(TargetFilter, RisesAtOnceAndFallsSlowlyAfterHolding) {
  TargetFilterConfig config;
  config.rise_hysteresis = Duration::micros(500);
  config.fall_hysteresis = Duration::millis(2);
  config.release_hold = Duration::seconds(5);
  config.release_rate = Duration::millis(1);
  TargetFilter f(config);
  EXPECT_EQ(f.update(sec(0), Duration::millis(20)), Duration::millis(20));
  EXPECT_EQ(f.update(sec(1), Duration::micros(20400)), Duration::millis(20));  // under the rise hysteresis
  EXPECT_EQ(f.update(sec(2), Duration::millis(30)), Duration::millis(30));     // at once
  EXPECT_EQ(f.update(sec(3), Duration::millis(29)), Duration::millis(30));     // inside the fall hysteresis
  // Ten lower from t = 4 s: held until 9 s, then 1 ms a second.
  EXPECT_EQ(f.update(sec(4), Duration::millis(20)), Duration::millis(30));
  EXPECT_EQ(f.update(sec(8.9), Duration::millis(20)), Duration::millis(30));
  EXPECT_EQ(f.update(sec(9), Duration::millis(20)), Duration::millis(30));
  EXPECT_EQ(f.update(sec(11), Duration::millis(20)), Duration::millis(28));
  EXPECT_EQ(f.update(sec(30), Duration::millis(20)), Duration::millis(20));  // never below the raw target
}

TEST(TargetFilter, ALargeFallIsFollowedSooner) {
  TargetFilterConfig config;
  config.release_hold = Duration::seconds(20);
  config.release_rate = Duration::micros(500);
  config.large_fall = Duration::millis(20);
  config.large_fall_hold = Duration::seconds(2);
  config.large_fall_rate = 0.2;
  TargetFilter f(config);
  f.update(sec(0), Duration::millis(80));
  // A route 40 ms shorter from t = 1 s: held 2 s, then a fifth of the gap per second.
  EXPECT_EQ(f.update(sec(1), Duration::millis(40)), Duration::millis(80));
  EXPECT_EQ(f.update(sec(3), Duration::millis(40)), Duration::millis(80));
  EXPECT_EQ(f.update(sec(3.5), Duration::millis(40)), Duration::millis(76));  // 0.2 x 40 ms x 0.5 s
  Duration v = Duration::millis(76);
  for (int step = 36; step < 100; ++step) v = f.update(sec(step / 10.0), Duration::millis(40));
  EXPECT_LE(v, Duration::micros(60'500));  // the large part goes within seconds...
  for (int step = 100; step < 900; ++step) v = f.update(sec(step / 10.0), Duration::millis(40));
  EXPECT_EQ(v, Duration::millis(40));  // ...the last 20 ms at the normal pace
  // A small fall still waits the long hold.
  TargetFilter g(config);
  g.update(sec(0), Duration::millis(80));
  EXPECT_EQ(g.update(sec(10), Duration::millis(75)), Duration::millis(80));
  EXPECT_EQ(g.update(sec(19.9), Duration::millis(75)), Duration::millis(80));
}

TEST(TargetFilter, ResetSetsTheValue) {
  TargetFilter f;
  f.update(sec(0), Duration::millis(50));
  f.reset(sec(1), Duration::millis(10));
  EXPECT_EQ(f.value(), Duration::millis(10));
}

}  // namespace
}  // namespace tickwire::timesync
