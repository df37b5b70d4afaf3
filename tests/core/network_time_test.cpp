#include "tickwire/core/network_time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace tickwire {
namespace {

TEST(NetworkTime, StartsAtZero) {
  NetworkTime t(60);
  EXPECT_EQ(t.tick(), Tick(0));
  EXPECT_EQ(t.fraction_units(), 0);
  EXPECT_TRUE(t.on_tick_boundary());
  EXPECT_EQ(t.tick_rate(), 60u);
}

TEST(NetworkTime, DurationToTickAndFraction) {
  const auto t = NetworkTime::from_duration(60, Duration::millis(25));  // 1.5 ticks at 60 Hz
  EXPECT_EQ(t.tick(), Tick(1));
  EXPECT_EQ(t.fraction_units(), 500'000);
  EXPECT_DOUBLE_EQ(t.fraction(), 0.5);
  EXPECT_EQ(t.since_zero(), Duration::millis(25));
  EXPECT_DOUBLE_EQ(t.ticks_f(), 1.5);
}

TEST(NetworkTime, FromTickRoundTrips) {
  const auto t = NetworkTime::from_tick(30, Tick(90), 250'000);
  EXPECT_EQ(t.tick(), Tick(90));
  EXPECT_EQ(t.fraction_units(), 250'000);
  EXPECT_DOUBLE_EQ(t.seconds(), 3.0 + 0.25 / 30.0);
}

TEST(NetworkTime, AddAndSubtractDurations) {
  auto t = NetworkTime::from_tick(60, Tick(10));
  t += Duration::micros(16'667);
  EXPECT_EQ(t.tick(), Tick(11));
  t -= Duration::micros(16'667);
  EXPECT_EQ(t, NetworkTime::from_tick(60, Tick(10)));
  EXPECT_TRUE((t - Duration::seconds(1)).is_negative());
}

TEST(NetworkTime, ArithmeticWithOtherTimes) {
  const auto a = NetworkTime::from_tick(60, Tick(100), 250'000);
  const auto b = NetworkTime::from_tick(60, Tick(40), 500'000);
  const auto diff = a - b;
  EXPECT_EQ(diff.tick(), Tick(59));
  EXPECT_EQ(diff.fraction_units(), 750'000);
  EXPECT_EQ(diff + b, a);
  EXPECT_LT(b, a);
  EXPECT_TRUE((b - a).is_negative());
}

TEST(NetworkTime, NegativeTimesFloorTowardMinusInfinity) {
  const auto t = NetworkTime(60) - Duration::micros(1);
  EXPECT_TRUE(t.is_negative());
  EXPECT_EQ(t.fraction_units(), NetworkTime::kUnitsPerTick - 60);
  EXPECT_EQ(t.since_zero(), Duration::micros(-1));
  EXPECT_THROW((void)t.tick(), std::logic_error);
}

TEST(NetworkTime, AddTicks) {
  const auto t = NetworkTime::from_tick(60, Tick(5), 1).add_ticks(-2);
  EXPECT_EQ(t.tick(), Tick(3));
  EXPECT_EQ(t.fraction_units(), 1);
}

TEST(NetworkTime, MixingRatesIsRejected) {
  const NetworkTime a(60);
  const NetworkTime b(30);
  EXPECT_THROW((void)(a + b), std::invalid_argument);
  EXPECT_THROW((void)(a - b), std::invalid_argument);
  EXPECT_THROW((void)(a < b), std::invalid_argument);
}

TEST(NetworkTime, InvalidConstructionIsRejected) {
  EXPECT_THROW(NetworkTime(0), std::invalid_argument);
  EXPECT_THROW(NetworkTime(NetworkTime::kMaxTickRate + 1), std::invalid_argument);
  EXPECT_THROW((void)NetworkTime::from_tick(60, Tick(1), -1), std::invalid_argument);
  EXPECT_THROW((void)NetworkTime::from_tick(60, Tick(1), NetworkTime::kUnitsPerTick), std::invalid_argument);
  EXPECT_THROW((void)NetworkTime::from_ticks_f(60, std::nan("")), std::invalid_argument);
  EXPECT_THROW((void)(NetworkTime(60) + Duration::micros(INT64_MAX / 2)), std::overflow_error);
}

// 2^31 ticks at 60 Hz is 414 days. A frame loop adds the measured frame time
// (in whole microseconds) sixty times a second; the tick count must be exact
// at the end. We run the last ten million frames explicitly and check the
// whole span algebraically: since one microsecond is exactly `rate` units,
// the sum of the frames equals the time of the summed duration.
TEST(NetworkTime, NoDriftOver414DaysAt60Hz) {
  constexpr std::int64_t kFramesPer3 = 50'000;                       // 16'666 + 16'667 + 16'667 us = 1/20 s
  constexpr std::int64_t kTotalTicks = (std::int64_t{1} << 31) + 1;  // a multiple of 3, past 414 days
  constexpr std::int64_t kTailFrames = 10'000'002;                   // a multiple of 3
  const std::int64_t head_ticks = kTotalTicks - kTailFrames;
  auto t = NetworkTime::from_duration(60, Duration::micros(head_ticks / 3 * kFramesPer3));
  ASSERT_EQ(t.tick().value(), static_cast<Tick::Rep>(head_ticks));
  ASSERT_TRUE(t.on_tick_boundary());
  const Duration frames[3] = {Duration::micros(16'666), Duration::micros(16'667), Duration::micros(16'667)};
  for (std::int64_t i = 0; i < kTailFrames; ++i) t += frames[i % 3];
  EXPECT_EQ(static_cast<std::int64_t>(t.tick().value()), kTotalTicks);
  EXPECT_TRUE(t.on_tick_boundary());
}

TEST(NetworkTime, ExactTicksAtOddRates) {
  // At 7 Hz a tick is 142857.142... us; 7 seconds must be exactly 49 ticks.
  auto t = NetworkTime(7);
  for (int i = 0; i < 7000; ++i) t += Duration::millis(1);
  EXPECT_EQ(t.tick(), Tick(49));
  EXPECT_TRUE(t.on_tick_boundary());
}

}  // namespace
}  // namespace tickwire
