// The interpolation buffer from hand-made snapshot arrivals.
#include "tickwire/timesync/interpolation_estimator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;
constexpr double kTickUs = 1e6 / kRate;
constexpr double kFrameUs = 1e6 / 144;

NetworkTime server_at(double us) { return NetworkTime::from_duration(kRate, Duration::micros(std::llround(us))); }
Time local_at(double us) { return Time::from_micros(std::llround(us)); }

// Snapshots every tick, each delayed by delay(i); the client sees them at
// its next 144 Hz frame. The local and server clocks agree.
template <class Delay>
void run(InterpolationEstimator& e, int count, Delay delay) {
  double previous_frame = 0;
  for (int i = 1; i <= count; ++i) {
    const double sent = 1e6 + i * kTickUs;
    const double arrives = sent + delay(i);
    const double frame = std::ceil(arrives / kFrameUs) * kFrameUs;
    e.add(local_at(frame), server_at(sent), server_at(frame), local_at(frame - kFrameUs), server_at(frame - kFrameUs),
          Duration::micros(std::llround(kFrameUs)));
    previous_frame = frame;
  }
  (void)previous_frame;
}

TEST(InterpolationEstimator, AnswersOnlyOnceItHasSeenEnough) {
  InterpolationEstimator e;
  run(e, 10, [](int) { return 20000.0; });
  EXPECT_FALSE(e.required_delay().has_value());
  run(e, 30, [](int) { return 20000.0; });
  EXPECT_TRUE(e.required_delay().has_value());
}

TEST(InterpolationEstimator, ASteadyStreamNeedsItsOldestFrameAge) {
  InterpolationEstimator e;
  run(e, 1800, [](int) { return 20000.0; });
  // The newest snapshot is at most a delay, a tick and a frame's rounding
  // old at any frame, and frames cannot see less than a frame's worth.
  const double delay_ms = e.required_delay()->millis_f();
  EXPECT_GE(delay_ms, 20.0 + 16.667 - 6.945);
  EXPECT_LE(delay_ms, 20.0 + 16.667 + 6.945);
}

TEST(InterpolationEstimator, ALostSnapshotInAHundredIsAllowedForHalfAPercent) {
  InterpolationEstimator steady;
  run(steady, 1800, [](int) { return 20000.0; });
  InterpolationEstimator lossy;
  // Every 100th snapshot arrives a tick late, as if lost and replaced by
  // the next: 1% of intervals last two ticks.
  run(lossy, 1800, [](int i) { return i % 100 == 0 ? 20000.0 + kTickUs : 20000.0; });
  EXPECT_LE(lossy.required_delay()->millis_f(), steady.required_delay()->millis_f() + 16.7);

  InterpolationEstimatorConfig strict;
  strict.target_starved_rate = 0.0005;
  InterpolationEstimator covered(strict);
  run(covered, 1800, [](int i) { return i % 100 == 0 ? 20000.0 + kTickUs : 20000.0; });
  EXPECT_GT(covered.required_delay()->millis_f(), lossy.required_delay()->millis_f());
}

TEST(InterpolationEstimator, RidesOutARareStallInsteadOfBufferingForIt) {
  // One snapshot in 200 (every 3.3 s) is held 200 ms, and the ones behind
  // it wait too (first in, first out). Covering that would add 200 ms to
  // every frame for a hold every few seconds; the buffer stays near the
  // ordinary stream's.
  InterpolationEstimator steady;
  run(steady, 3600, [](int) { return 20000.0; });
  InterpolationEstimator stalled;
  run(stalled, 3600, [](int i) {
    const int since = i % 200;
    return since < 12 ? 20000.0 + std::max(0.0, 200000.0 - since * kTickUs) : 20000.0;
  });
  EXPECT_LE(stalled.required_delay()->millis_f(), steady.required_delay()->millis_f() + 16.7);
}

TEST(InterpolationEstimator, CoversHoldUpsThatStarveMuchOfTheTime) {
  // The same 200 ms hold every 0.5 s starves a third of the time: that is
  // the link, and the buffer covers it.
  InterpolationEstimator e;
  run(e, 3600, [](int i) {
    const int since = i % 30;
    return since < 12 ? 20000.0 + std::max(0.0, 200000.0 - since * kTickUs) : 20000.0;
  });
  EXPECT_GE(e.required_delay()->millis_f(), 200.0);
}

TEST(InterpolationEstimator, FollowsARisingDelayAhead) {
  // The downlink's delay grows by 3 ms a second. The quantile alone trails
  // the newest ages (its allowance is spent on the top of the ramp); the
  // trend projects it ahead by the lag of the steering and the window.
  auto ramp = [](int i) { return 20000.0 + 3000.0 * i / 60.0; };
  InterpolationEstimatorConfig flat;
  flat.trend_lookahead = Duration::zero();
  InterpolationEstimator without(flat);
  run(without, 3600, ramp);
  InterpolationEstimator with;
  run(with, 3600, ramp);
  EXPECT_GE(with.required_delay()->millis_f(), without.required_delay()->millis_f() + 3.0);
  const double newest_age_ms = ramp(3600) / 1000.0 + 16.667;
  EXPECT_GE(with.required_delay()->millis_f(), newest_age_ms - 2.0);
}

TEST(InterpolationEstimator, IgnoresSnapshotsOlderThanTheNewest) {
  InterpolationEstimator e;
  run(e, 100, [](int) { return 20000.0; });
  const auto before = e.samples();
  e.add(local_at(3e6), server_at(1e6), server_at(3e6), local_at(3e6 - kFrameUs), server_at(3e6 - kFrameUs),
        Duration::micros(6944));
  EXPECT_EQ(e.samples(), before);
}

TEST(InterpolationEstimator, RejectsABadConfig) {
  InterpolationEstimatorConfig bad;
  bad.target_starved_rate = 1.5;
  EXPECT_THROW(InterpolationEstimator{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::timesync
