// The rewind policy: which time a claimed view time becomes.

#include "tickwire/lagcomp/rewind_policy.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tickwire::lagcomp {
namespace {

constexpr std::uint32_t kRate = 50;  // 20 ms a tick

NetworkTime ms(std::int64_t millis) { return NetworkTime::from_duration(kRate, Duration::millis(millis)); }

// History from 750 ms to 1000 ms.
const TimeRange kRange{ms(750), ms(1000)};

TEST(RewindPolicy, UsesAClaimWithinTheToleranceAsItStands) {
  RewindPolicy p;
  const auto d = p.decide(ms(850), ms(900), kRange);
  EXPECT_EQ(d.time, ms(850));
  EXPECT_FALSE(d.replaced);
  EXPECT_FALSE(d.clamped);
  EXPECT_EQ(p.stats().as_claimed, 1U);
}

TEST(RewindPolicy, ReplacesAClaimFurtherThanTheToleranceFromTheEstimate) {
  RewindPolicyConfig c;
  c.tolerance = Duration::millis(100);
  RewindPolicy p(c);
  EXPECT_EQ(p.decide(ms(800), ms(900), kRange).time, ms(800));  // exactly the tolerance: kept
  const auto early = p.decide(ms(800) - Duration::micros(1), ms(900), kRange);
  EXPECT_EQ(early.time, ms(900));
  EXPECT_TRUE(early.replaced);
  const auto late = p.decide(ms(1000) + Duration::micros(1), ms(900), kRange);
  EXPECT_EQ(late.time, ms(900));
  EXPECT_TRUE(late.replaced);
  EXPECT_EQ(p.stats().replaced, 2U);
  EXPECT_EQ(p.stats().as_claimed, 1U);
}

TEST(RewindPolicy, WithoutAClaimUsesTheEstimate) {
  RewindPolicy p;
  const auto d = p.decide(std::nullopt, ms(900), kRange);
  EXPECT_EQ(d.time, ms(900));
  EXPECT_TRUE(d.replaced);
  EXPECT_EQ(p.stats().unclaimed, 1U);
  EXPECT_EQ(p.stats().replaced, 1U);
}

TEST(RewindPolicy, ClampsIntoTheHistory) {
  RewindPolicy p;
  // Within the tolerance of the estimate, but older than the history.
  const auto old = p.decide(ms(700), ms(760), kRange);
  EXPECT_EQ(old.time, ms(750));
  EXPECT_TRUE(old.clamped);
  EXPECT_FALSE(old.replaced);
  // After the newest tick: the present.
  const auto future = p.decide(ms(1010), ms(990), kRange);
  EXPECT_EQ(future.time, ms(1000));
  EXPECT_TRUE(future.clamped);
  // Replaced and then clamped: an estimate older than the history (a
  // client whose round trip exceeds max_rewind) is clamped too.
  const auto both = p.decide(ms(990), ms(500), kRange);
  EXPECT_EQ(both.time, ms(750));
  EXPECT_TRUE(both.replaced);
  EXPECT_TRUE(both.clamped);
  EXPECT_EQ(p.stats().decisions, 3U);
  EXPECT_EQ(p.stats().clamped, 3U);
  EXPECT_EQ(p.stats().replaced, 1U);
  EXPECT_EQ(p.stats().as_claimed, 0U);
}

TEST(RewindPolicy, CountsTeleportBlockedRewinds) {
  RewindPolicy p;
  p.count_teleport_blocked(2);
  p.count_teleport_blocked(0);
  p.count_teleport_blocked(1);
  EXPECT_EQ(p.stats().teleport_blocked, 3U);
}

TEST(RewindPolicy, TheEstimateIsOneRoundTripAndTheInterpolationDelayBeforeArrival) {
  EXPECT_EQ(estimate_view_time(ms(1000), Duration::millis(80), Duration::millis(50)), ms(870));
}

TEST(RewindPolicy, RefusesAToleranceOutsideItsRange) {
  RewindPolicyConfig c;
  c.tolerance = Duration::millis(-1);
  EXPECT_THROW(RewindPolicy{c}, std::invalid_argument);
  c.tolerance = Duration::millis(1001);
  EXPECT_THROW(RewindPolicy{c}, std::invalid_argument);
  c.tolerance = Duration::zero();
  RewindPolicy strict(c);
  EXPECT_TRUE(strict.decide(ms(899), ms(900), kRange).replaced);
  EXPECT_FALSE(strict.decide(ms(900), ms(900), kRange).replaced);
}

}  // namespace
}  // namespace tickwire::lagcomp
