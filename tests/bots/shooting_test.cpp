// Scoring hitscan shots (tools/bots/shooting.h): the view-side ray test,
// matching the server's results to the shots fired, and the registration
// and false-hit figures and thresholds built on them.
#include "shooting.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "metrics.h"
#include "thresholds.h"

namespace tickwire::bots {
namespace {

using arena_bots::ray_hits_any;
using arena_bots::ShotLedger;

constexpr std::int32_t kMiss = static_cast<std::int32_t>(arena::ShotResult::kMiss);
constexpr std::int32_t kHit = static_cast<std::int32_t>(arena::ShotResult::kHit);
constexpr std::int32_t kTeleported = static_cast<std::int32_t>(arena::ShotResult::kMissTeleported);
constexpr std::int32_t kVoid = static_cast<std::int32_t>(arena::ShotResult::kVoid);

TEST(Shooting, ARayHitsACircleItEntersOrGrazesAndMissesOneJustBeside) {
  const std::vector<arena::Vec2> target{{10.0F, 0.0F}};
  EXPECT_TRUE(ray_hits_any({0, 0}, 0.0F, target));
  // Grazing: the edge is 0.5 m off the line at 10 m.
  EXPECT_TRUE(ray_hits_any({0, 0.5F}, 0.0F, target));
  EXPECT_FALSE(ray_hits_any({0, 0.52F}, 0.0F, target));
  // Behind the origin, or beyond the weapon's range: no.
  EXPECT_FALSE(ray_hits_any({0, 0}, 3.14159265F, target));
  EXPECT_FALSE(ray_hits_any({-arena::kHitscanRange, 0}, 0.0F, target));
  // An origin inside a circle hits it.
  EXPECT_TRUE(ray_hits_any({10.2F, 0}, 1.5F, target));
}

TEST(Shooting, ResultsAreMatchedToTheShotsTheyJudge) {
  ShotLedger ledger;
  ledger.fired(Tick(100), true);
  ledger.fired(Tick(112), true);
  ledger.fired(Tick(124), false);
  ledger.fired(Tick(136), false);
  ledger.judged(100, kHit);
  ledger.judged(100, kHit);  // the same result seen in the next snapshot: counted once
  // 112's result was overwritten before a snapshot carried it: never judged.
  ledger.judged(124, kHit);
  ledger.judged(136, kMiss);
  const ShotFigures& f = ledger.figures();
  EXPECT_EQ(f.on_target, 1u);
  EXPECT_EQ(f.on_target_hits, 1u);
  EXPECT_EQ(f.unresolved, 1u);
  EXPECT_EQ(f.off_target, 2u);
  EXPECT_EQ(f.off_target_hits, 1u);
  EXPECT_EQ(ledger.open(), 0u);
}

TEST(Shooting, ShotsRefusedByTheRespawnRulesAreLeftOutOfTheRates) {
  ShotLedger ledger;
  ledger.fired(Tick(10), true);
  ledger.fired(Tick(20), false);
  ledger.fired(Tick(30), true);
  ledger.judged(10, kTeleported);
  ledger.judged(20, kVoid);
  ledger.judged(30, kMiss);
  ledger.fired(Tick(40), true);
  ledger.close();  // still in flight at the end
  const ShotFigures& f = ledger.figures();
  EXPECT_EQ(f.teleport_blocked, 2u);
  EXPECT_EQ(f.on_target, 1u);
  EXPECT_EQ(f.on_target_hits, 0u);
  EXPECT_EQ(f.off_target, 0u);
  EXPECT_EQ(f.unresolved, 1u);
}

TEST(Shooting, SummaryAndThresholdsCarryRegistrationAndFalseHits) {
  std::vector<BotFigures> bots(2);
  bots[0].shots.on_target = 200;
  bots[0].shots.on_target_hits = 199;
  bots[1].shots.off_target = 100;
  bots[1].shots.off_target_hits = 1;
  const Summary s = summarize(Recorder{}, bots, Outcome{}, 10.0, 60);
  ASSERT_TRUE(s.hit_registration && s.false_hits);
  EXPECT_DOUBLE_EQ(*s.hit_registration, 0.995);
  EXPECT_DOUBLE_EQ(*s.false_hits, 0.01);
  Thresholds t;
  t.min_hit_registration = 0.995;
  t.max_false_hits = 0.005;
  const auto checks = evaluate(s, t);
  const auto find = [&](const std::string& name) {
    for (const auto& c : checks) {
      if (c.name == name) return c;
    }
    ADD_FAILURE() << name;
    return ThresholdCheck{};
  };
  EXPECT_TRUE(find("--min-hit-registration").passed);
  EXPECT_FALSE(find("--max-false-hits").passed);
  // A run without shots proves nothing: both fail.
  const auto none = evaluate(summarize(Recorder{}, std::vector<BotFigures>(1), Outcome{}, 10.0, 60), t);
  for (const auto& c : none) {
    if (c.name == "--min-hit-registration" || c.name == "--max-false-hits") {
      EXPECT_FALSE(c.passed);
      EXPECT_NE(c.describe().find("no figure ("), std::string::npos) << c.describe();
    }
  }
}

}  // namespace
}  // namespace tickwire::bots
