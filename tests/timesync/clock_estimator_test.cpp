// Offset and drift from hand-made snapshot timestamps with a known truth.
#include "tickwire/timesync/clock_estimator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;

// A server whose clock reads `offset_us + local * rate` at local time
// `local`, reached over one-way delays `up` and `down` (microseconds).
struct World {
  double offset_us = 1e9;  // the server's epoch is far from ours
  double rate = 1.0;

  double server_us(double local_us) const { return offset_us + local_us * rate; }
  // A snapshot arriving at local `recv` after `down`, closing a round trip
  // of up + down (+ extra queueing the sample shows in its round trip).
  void feed(ClockEstimator& c, double recv_us, double up_us, double down_us) const {
    const double sent = server_us(recv_us - down_us);
    c.add(Time::from_micros(std::llround(recv_us)),
          NetworkTime::from_duration(kRate, Duration::micros(std::llround(sent))),
          Duration::micros(std::llround(up_us + down_us)));
  }
  double error_ms(const ClockEstimator& c, double local_us) const {
    const auto est = c.server_time(Time::from_micros(std::llround(local_us)));
    return (est->seconds() * 1e6 - server_us(local_us)) / 1000.0;
  }
};

TEST(ClockEstimator, SymmetricPathGivesTheExactOffset) {
  ClockEstimator c(kRate);
  World w;
  EXPECT_FALSE(c.has_estimate());
  for (int i = 0; i < 120; ++i) w.feed(c, 1e6 + i * 16667.0, 20000, 20000);
  ASSERT_TRUE(c.has_estimate());
  EXPECT_NEAR(w.error_ms(c, 1e6 + 120 * 16667.0), 0.0, 0.002);
  EXPECT_NEAR(c.rate(), 1.0, 1e-9);
}

TEST(ClockEstimator, TrustsTheLeastQueuedSampleOfASlice) {
  ClockEstimator c(kRate);
  World w;
  // Most samples queue 8 ms on the way down, which alone would put the
  // estimate 4 ms behind; one per slice does not queue.
  for (int i = 0; i < 600; ++i) {
    const double queue = i % 30 == 7 ? 0.0 : 8000.0;
    w.feed(c, 1e6 + i * 16667.0, 20000, 20000 + queue);
  }
  EXPECT_NEAR(w.error_ms(c, 1e6 + 600 * 16667.0), 0.0, 0.01);
}

TEST(ClockEstimator, TracksDrift) {
  ClockEstimator c(kRate);
  World w;
  w.rate = 1.0 - 1000e-6;  // the client's clock runs 1000 ppm fast
  for (int i = 0; i < 60 * 60; ++i) w.feed(c, 1e6 + i * 16667.0, 20000, 20000);
  EXPECT_NEAR(c.rate(), w.rate, 5e-6);
  EXPECT_NEAR(w.error_ms(c, 1e6 + 3600 * 16667.0), 0.0, 0.05);
}

TEST(ClockEstimator, AsymmetricPathIsOffByHalfTheAsymmetry) {
  ClockEstimator c(kRate);
  World w;
  for (int i = 0; i < 600; ++i) w.feed(c, 1e6 + i * 16667.0, 10000, 40000);
  // (up - down) / 2 = -15 ms: the path's asymmetry is invisible to timestamps.
  EXPECT_NEAR(w.error_ms(c, 1e6 + 600 * 16667.0), -15.0, 0.01);
}

TEST(ClockEstimator, AServerClockStepRestartsTheEstimate) {
  ClockEstimator c(kRate);
  World w;
  int i = 0;
  for (; i < 600; ++i) w.feed(c, 1e6 + i * 16667.0, 20000, 20000);
  EXPECT_EQ(c.steps(), 0u);
  w.offset_us += 1e6;  // the server jumps a second ahead
  for (int k = 0; k < 20; ++k, ++i) w.feed(c, 1e6 + i * 16667.0, 20000, 20000);
  EXPECT_EQ(c.steps(), 1u);
  EXPECT_NEAR(w.error_ms(c, 1e6 + i * 16667.0), 0.0, 0.01);
  EXPECT_GT(c.rejected(), 0u);  // the samples before the step was certain
}

TEST(ClockEstimator, ARouteChangeIsNotAStep) {
  ClockEstimator c(kRate);
  World w;
  int i = 0;
  for (; i < 600; ++i) w.feed(c, 1e6 + i * 16667.0, 20000, 20000);
  for (int k = 0; k < 600; ++k, ++i) w.feed(c, 1e6 + i * 16667.0, 60000, 60000);
  EXPECT_EQ(c.steps(), 0u);
  EXPECT_NEAR(w.error_ms(c, 1e6 + i * 16667.0), 0.0, 0.01);
}

TEST(ClockEstimator, SlewsRatherThanJumps) {
  ClockEstimatorConfig config;
  config.drift_slices = 120;  // a minute, to keep the test short
  ClockEstimator c(kRate, config);
  World w;
  int i = 0;
  for (; i < 600; ++i) w.feed(c, 1e6 + i * 16667.0, 20000, 20000);
  // The downlink alone gets 20 ms longer: once the old samples have left
  // the fit's windows it is 10 ms behind, and the clock handed out follows
  // at most max_slew per second.
  double previous = w.error_ms(c, 1e6 + i * 16667.0);
  double worst_step = 0;
  for (int k = 0; k < 2 * 3600; ++k, ++i) {
    w.feed(c, 1e6 + i * 16667.0, 20000, 40000);
    const double now = w.error_ms(c, 1e6 + i * 16667.0);
    worst_step = std::max(worst_step, std::fabs(now - previous));
    previous = now;
  }
  // Never a jump: the rate changes by at most the fitted drift's bound plus
  // the slew's (ms per 16.667 ms sample).
  EXPECT_LE(worst_step, (config.max_slew + config.max_drift) * 16.667 + 0.002);
  const auto fitted = c.fitted_server_time(Time::from_micros(std::llround(1e6 + i * 16667.0)));
  EXPECT_NEAR((fitted->seconds() * 1e6 - w.server_us(1e6 + i * 16667.0)) / 1000.0, -10.0, 0.1);
  EXPECT_NEAR(previous, -10.0, 0.1);
}

TEST(ClockEstimator, RejectsUnusableSamples) {
  ClockEstimator c(kRate);
  const NetworkTime sent = NetworkTime::from_tick(kRate, Tick(100));
  EXPECT_FALSE(c.add(Time::from_micros(1000), sent, Duration::millis(-1)));
  EXPECT_FALSE(c.add(Time::from_micros(1000), sent, Duration::seconds(11)));
  EXPECT_FALSE(c.add(Time::from_micros(1000), NetworkTime::from_tick(30, Tick(100)), Duration::millis(5)));
  EXPECT_TRUE(c.add(Time::from_micros(1000), sent, Duration::millis(5)));
  EXPECT_FALSE(c.add(Time::from_micros(999), sent, Duration::millis(5)));  // time went backwards
  EXPECT_EQ(c.rejected(), 4u);
}

TEST(ClockEstimator, RejectsABadConfig) {
  ClockEstimatorConfig bad;
  bad.slices = 1;
  EXPECT_THROW(ClockEstimator(kRate, bad), std::invalid_argument);
  EXPECT_THROW(ClockEstimator(0), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::timesync
