// Lag compensation end to end on the simulated network, deterministic for
// its seed: shooter clients (the bots' scripts and scoring) against the
// real server and arena over the broadband profile. With compensation,
// what a shooter sees on target is a hit and what it sees off target is
// not; without it (a window of 0) most shots at strafing players miss.
#include <gtest/gtest.h>

#include <cstdio>

#include "registration_match.h"

namespace tickwire {
namespace {

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

TEST(HitRegistrationSim, ShotsRegisterAsTheShooterSawThemOnBroadband) {
  const std::uint64_t seed = 11;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  const transport::LinkProfile link = *transport::find_link_profile("broadband");
  const bench::ShootingOutcome with = bench::run_shooting_match(link, Duration::millis(250), 20.0, 8, seed);
  ASSERT_GT(with.on.on_target, 250u);
  ASSERT_GT(with.off.off_target, 250u);
  const double registration = ratio(with.on.on_target_hits, with.on.on_target);
  const double false_hits = ratio(with.off.off_target_hits, with.off.off_target);
  std::printf("with: registration %.4f of %llu, false hits %.4f of %llu\n", registration,
              static_cast<unsigned long long>(with.on.on_target), false_hits,
              static_cast<unsigned long long>(with.off.off_target));
  EXPECT_GE(registration, 0.995);
  EXPECT_LE(false_hits, 0.005);
  // Honest clients: every view time used as claimed, none replaced or clamped.
  EXPECT_GT(with.decisions, 0u);
  EXPECT_EQ(with.replaced, 0u);
  EXPECT_EQ(with.clamped, 0u);

  const bench::ShootingOutcome without = bench::run_shooting_match(link, Duration::zero(), 20.0, 8, seed);
  const double bare = ratio(without.on.on_target_hits, without.on.on_target);
  std::printf("without: registration %.4f of %llu\n", bare, static_cast<unsigned long long>(without.on.on_target));
  EXPECT_LT(bare, 0.9);
}

}  // namespace
}  // namespace tickwire
