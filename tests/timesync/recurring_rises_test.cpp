// The hold for rises that keep coming back, from hand-made lead sequences.
#include "tickwire/timesync/recurring_rises.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tickwire::timesync {
namespace {

constexpr Duration kFrame = Duration::micros(16667);
const Duration kCost = Duration::millis(100);  // the lead estimator's late_event_cost

Time at_s(double s) { return Time::from_micros(static_cast<std::int64_t>(1e6 + s * 1e6)); }

// Feeds a raw lead, one frame at a time from `from_s` to `to_s`: `low`
// for the first period_s - high_s of each period, then `high`, with `late`
// inputs reported late just after each step up the hold did not cover. Leaves
// in `held` whether the last frame was held, and returns the floor.
struct Route {
  Duration low = Duration::millis(40);
  Duration high = Duration::millis(100);
  double period_s = 14;     // one rise this often
  double high_s = 7;        // and this long on the longer route
  std::uint64_t late = 18;  // late inputs, in reports of two a frame apart (30 reports a second)
};
std::optional<Duration> drive(RecurringRises& r, const Route& route, double from_s, double to_s, bool& held) {
  std::optional<Duration> floor;
  for (Time t = at_s(from_s); t < at_s(to_s); t = t + kFrame) {
    const double s = (t - at_s(0)).seconds_f();
    const double phase = s - route.period_s * static_cast<double>(static_cast<long>(s / route.period_s));
    const double up = route.period_s - route.high_s;  // when the step up comes
    const Duration raw = phase < up ? route.low : route.high;
    r.observe(t, raw, held);
    const double after = phase - up - 0.2;  // the first report comes 0.2 s after the step
    if (!held && after > 0 && after < static_cast<double>(route.late / 2) * kFrame.seconds_f()) r.on_late(t, 2);
    floor = r.floor(t, raw, kCost);
    held = floor && *floor > raw;
  }
  return floor;
}

TEST(RecurringRises, HoldsARouteThatKeepsFlapping) {
  RecurringRises r;
  bool held = false;
  // The first rise (at 7 s) alone is a route change: followed down.
  drive(r, Route{}, 0.5, 17, held);
  EXPECT_FALSE(held);
  EXPECT_EQ(r.rises(), 1U);
  // The second (21 s) makes a pattern: on the shorter route the lead stays
  // up.
  const auto floor = drive(r, Route{}, 17, 30, held);
  EXPECT_TRUE(held);
  ASSERT_TRUE(floor.has_value());
  EXPECT_EQ(*floor, Duration::millis(100));
  ASSERT_TRUE(r.late_per_rise().has_value());
  EXPECT_DOUBLE_EQ(*r.late_per_rise(), 18.0);
  // Rises met under the hold cost nothing and are not counted as cheap:
  // the hold stays for as long as they come.
  drive(r, Route{}, 26, 200, held);
  EXPECT_TRUE(held);
  EXPECT_DOUBLE_EQ(*r.late_per_rise(), 18.0);
}

TEST(RecurringRises, LetsGoAMemoryAfterTheLastRise) {
  RecurringRises r;
  bool held = false;
  drive(r, Route{}, 0.5, 44, held);
  ASSERT_TRUE(held);
  // The route stays on the shorter path from 42 s. The rises were at 7, 21
  // and 35 s: two intervals of 18 late inputs in 60 s at 67 s are worth
  // 60 ms; then the first leaves the memory, and one in 46 s (39 ms) is not.
  Route settled = Route{};
  settled.high_s = 0;
  drive(r, settled, 44, 66, held);
  EXPECT_TRUE(held);
  drive(r, settled, 66, 68, held);
  EXPECT_FALSE(held);
}

TEST(RecurringRises, DoesNotHoldWhatRisesCostTooLittle) {
  // Four late inputs a rise every 14 s: at most 100 ms x 4 / 14 s = 29 ms,
  // below the 60 ms the hold would keep.
  RecurringRises r;
  bool held = false;
  Route cheap;
  cheap.late = 4;
  drive(r, cheap, 0.5, 100, held);
  EXPECT_FALSE(held);
  EXPECT_GE(r.rises(), 2U);
}

TEST(RecurringRises, DoesNotHoldRareRouteChanges) {
  // A change a minute, each as costly as a flap's, is one rise in memory at
  // a time: a route change, followed down each time.
  RecurringRises r;
  bool held = false;
  Route rare;
  rare.period_s = 61;
  rare.high_s = 20;
  drive(r, rare, 0.5, 300, held);
  EXPECT_FALSE(held);
}

TEST(RecurringRises, WithoutLateInputsNothingIsHeld) {
  RecurringRises r;
  bool held = false;
  Route free;
  free.late = 0;
  drive(r, free, 0.5, 100, held);
  EXPECT_FALSE(held);
  ASSERT_TRUE(r.late_per_rise().has_value());
  EXPECT_DOUBLE_EQ(*r.late_per_rise(), 0.0);
}

TEST(RecurringRises, CanBeTurnedOff) {
  RecurringRisesConfig config;
  config.enabled = false;
  RecurringRises r(config);
  bool held = false;
  drive(r, Route{}, 0.5, 100, held);
  EXPECT_FALSE(held);
}

TEST(RecurringRises, ClearForgetsEverything) {
  RecurringRises r;
  bool held = false;
  drive(r, Route{}, 0.5, 44, held);
  ASSERT_TRUE(held);
  r.clear();
  EXPECT_EQ(r.rises(), 0U);
  EXPECT_FALSE(r.late_per_rise().has_value());
  EXPECT_FALSE(r.floor(at_s(40), Duration::millis(40), kCost).has_value());
}

TEST(RecurringRises, RejectsAnUnusableConfig) {
  RecurringRisesConfig c;
  c.min_rise = Duration::zero();
  EXPECT_THROW(RecurringRises{c}, std::invalid_argument);
  c = {};
  c.memory = Duration::millis(-1);
  EXPECT_THROW(RecurringRises{c}, std::invalid_argument);
  c = {};
  c.blame_after = Duration::millis(-1);
  EXPECT_THROW(RecurringRises{c}, std::invalid_argument);
  c = {};
  c.min_rises = 0;
  EXPECT_THROW(RecurringRises{c}, std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::timesync
