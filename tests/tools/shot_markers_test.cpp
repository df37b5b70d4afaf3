// The viewer's hitscan markers: each shot is remembered as fired with the
// players as drawn, and the server's verdict in the shot entity is matched
// to it by tick; hits and misses are counted once per verdict.
#include "shot_markers.h"

#include <gtest/gtest.h>

#include "tickwire/arena/arena.h"

namespace tickwire::viewer {
namespace {

using arena::ShotResult;
using snapshot::Vec2;

constexpr std::uint32_t kSelf = 5;

struct Verdicts {
  snapshot::World world{arena::schema().schema};
  snapshot::EntityId shot = world.spawn(arena::schema().shot_type);

  Verdicts() { world.set(shot, arena::schema().shot_owner, static_cast<std::int32_t>(kSelf)); }

  // What the server writes for a shot judged at `tick`.
  void judge(std::int32_t tick, ShotResult result, Vec2 origin, float aim, std::int32_t target = -1, Vec2 pose = {},
             float radius = 0.0F) {
    const arena::Schema& s = arena::schema();
    world.set(shot, s.shot_tick, tick);
    world.set(shot, s.shot_result, static_cast<std::int32_t>(result));
    world.set(shot, s.shot_origin, origin);
    world.set(shot, s.shot_aim, aim);
    world.set(shot, s.shot_target_owner, target);
    world.set(shot, s.shot_target_position, pose);
    world.set(shot, s.shot_target_radius, radius);
  }
};

TEST(ShotMarkers, AHitShowsTheRewoundShapeAndTheTargetAsDrawnWhenFired) {
  Verdicts v;
  ShotMarkers m;
  m.fired(Tick(100), {{1, {10.0F, 0.0F}}, {2, {5.0F, 3.0F}}});
  v.judge(100, ShotResult::kHit, {0.0F, 0.0F}, 0.0F, 1, {9.5F, 0.1F}, 0.5F);
  m.observe(v.world, kSelf, Time::from_micros(1'000'000));
  ASSERT_EQ(m.markers().size(), 1u);
  const ShotMarker& k = m.markers().front();
  EXPECT_EQ(k.result, ShotResult::kHit);
  ASSERT_TRUE(k.rewound && k.seen);
  EXPECT_NEAR(k.rewound->x, 9.5F, 0.01F);
  EXPECT_NEAR(k.rewound_radius, 0.5F, 0.01F);
  // Player 1 (the one struck) as it was drawn, not the nearer player 2.
  EXPECT_EQ(k.seen->x, 10.0F);
  EXPECT_EQ(m.counts().fired, 1u);
  EXPECT_EQ(m.counts().judged, 1u);
  EXPECT_EQ(m.counts().hits, 1u);
  EXPECT_EQ(m.counts().misses, 0u);
}

TEST(ShotMarkers, AMissShowsThePlayerNearestTheRayInFront) {
  Verdicts v;
  ShotMarkers m;
  // Aimed along +x: player 3 is behind the shooter, player 2 is 2 m off
  // the ray, player 1 is 0.8 m off it.
  m.fired(Tick(7), {{3, {-5.0F, 0.0F}}, {2, {4.0F, 2.0F}}, {1, {12.0F, 0.8F}}});
  v.judge(7, ShotResult::kMiss, {0.0F, 0.0F}, 0.0F);
  m.observe(v.world, kSelf, Time::from_micros(0));
  ASSERT_EQ(m.markers().size(), 1u);
  EXPECT_FALSE(m.markers().front().rewound.has_value());
  ASSERT_TRUE(m.markers().front().seen.has_value());
  EXPECT_EQ(m.markers().front().seen->x, 12.0F);
  EXPECT_EQ(m.counts().misses, 1u);
  EXPECT_EQ(m.counts().hits, 0u);
}

TEST(ShotMarkers, EachVerdictCountsOnceAndOnlyForAShotThisViewerFired) {
  Verdicts v;
  ShotMarkers m;
  // A verdict left from before: nothing fired with that tick.
  v.judge(40, ShotResult::kHit, {}, 0.0F, 1, {1.0F, 0.0F}, 0.5F);
  m.observe(v.world, kSelf, Time::from_micros(0));
  EXPECT_EQ(m.counts().judged, 0u);
  m.fired(Tick(50), {});
  m.fired(Tick(51), {});
  m.fired(Tick(52), {});
  // 50 went unanswered (its verdict overwritten before a snapshot carried
  // it); 51's arrives, and stays the same for several frames.
  v.judge(51, ShotResult::kMiss, {}, 0.0F);
  for (int frame = 0; frame < 3; ++frame) m.observe(v.world, kSelf, Time::from_micros(frame * 16'000));
  EXPECT_EQ(m.counts().judged, 1u);
  v.judge(52, ShotResult::kHit, {}, 0.0F, 1, {1.0F, 0.0F}, 0.5F);
  m.observe(v.world, kSelf, Time::from_micros(100'000));
  EXPECT_EQ(m.counts().fired, 3u);
  EXPECT_EQ(m.counts().judged, 2u);
  EXPECT_EQ(m.counts().hits, 1u);
  EXPECT_EQ(m.counts().misses, 1u);
  EXPECT_EQ(m.markers().size(), 2u);
  // Another player's shot entity is not this viewer's.
  ShotMarkers other;
  other.fired(Tick(52), {});
  other.observe(v.world, kSelf + 1, Time::from_micros(0));
  EXPECT_EQ(other.counts().judged, 0u);
}

TEST(ShotMarkers, MarkersFadeAfterTheirLife) {
  Verdicts v;
  ShotMarkers m;
  m.fired(Tick(3), {});
  v.judge(3, ShotResult::kMiss, {}, 0.0F);
  const Time t0 = Time::from_micros(5'000'000);
  m.observe(v.world, kSelf, t0);
  m.observe(v.world, kSelf, t0 + ShotMarkers::kLife);
  EXPECT_EQ(m.markers().size(), 1u);
  m.observe(v.world, kSelf, t0 + ShotMarkers::kLife + Duration::millis(1));
  EXPECT_TRUE(m.markers().empty());
  EXPECT_EQ(m.counts().judged, 1u);  // counts stay
}

}  // namespace
}  // namespace tickwire::viewer
