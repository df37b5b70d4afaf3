// The arena's hitscan weapon: shots judged against the players as the
// shooter saw them (lag compensation), its result replicated to the
// shooter, and the rules around it (stand-ins fire nothing, a respawn
// blocks the rewind).
#include "tickwire/arena/hitscan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "tickwire/arena/arena.h"

namespace tickwire::arena {
namespace {

struct Shooting {
  snapshot::World world{schema().schema};
  Game game;
  Tick tick{0};
  std::map<std::uint32_t, Vec2> target_at;  // the target's position after each tick
  EntityId shooter;
  EntityId target;

  Shooting() {
    populate(world);
    shooter = spawn_player(world, 1);
    target = spawn_player(world, 2);
  }

  // One authoritative tick: the target walks along x, the shooter stands
  // still; `fire` fires the shooter's weapon at `aim`, judged at `rewind`.
  void step(std::optional<float> aim = std::nullopt, std::optional<NetworkTime> rewind = std::nullopt,
            bool fallback = false) {
    tick = tick + 1;
    Input shooter_in;
    if (aim) {
      shooter_in.fire = true;
      shooter_in.aim = *aim;
    }
    Input target_in;
    target_in.move = {1.0F, 0.0F};
    const snapshot::Record a = to_record(shooter_in);
    const snapshot::Record b = to_record(target_in);
    std::vector<prediction::PlayerInput> inputs{{prediction::PlayerId{1}, &a, fallback, std::nullopt, rewind},
                                                {prediction::PlayerId{2}, &b, false, std::nullopt, std::nullopt}};
    prediction::step_authoritative(game, world, tick, prediction::Inputs(inputs));
    target_at[tick.value()] = world.get(target, schema().player_position);
  }

  // The angle from the shooter to a point, as the wire quantizes it.
  float aim_at(Vec2 p) const {
    const Vec2 s = world.get(shooter, schema().player_position);
    Input in;
    in.aim = std::atan2(p.y - s.y, p.x - s.x);
    return from_record(to_record(in)).aim;
  }

  ShotResult last_result() const {
    const auto shot = find_shot(world, 1);
    if (!shot) return ShotResult::kNone;
    EXPECT_EQ(world.get(*shot, schema().shot_tick), static_cast<std::int32_t>(tick.value()));
    return static_cast<ShotResult>(world.get(*shot, schema().shot_result));
  }
};

NetworkTime at_tick(std::uint32_t t, double fraction = 0.0) {
  return NetworkTime::from_tick(60, Tick(t), static_cast<std::int64_t>(fraction * NetworkTime::kUnitsPerTick));
}

TEST(Hitscan, HitsTheTargetWhereTheShooterSawIt) {
  Shooting s;
  for (int i = 0; i < 30; ++i) s.step();
  // Ten ticks back the target stood a metre behind where it is now: a shot
  // at that spot hits when judged at that view time...
  const float aim = s.aim_at(s.target_at[20]);
  s.step(aim, at_tick(20));
  EXPECT_EQ(s.last_result(), ShotResult::kHit);
  EXPECT_EQ(s.world.get(s.target, schema().player_health), kMaxHealth - kHitscanDamage);
  // ...and misses when judged at the present.
  s.step(aim, at_tick(s.tick.value() - 1));
  EXPECT_EQ(s.last_result(), ShotResult::kMiss);
}

// The shot entity carries the struck shape where the server judged it, so
// the shooter's client can draw it: it must be the history's pose at the
// judged view time (to the field's 0.01 m steps), not the target's present.
TEST(Hitscan, TheShotEntityCarriesTheRewoundPoseTheServerJudged) {
  Shooting s;
  for (int i = 0; i < 30; ++i) s.step();
  const Vec2 origin = s.world.get(s.shooter, schema().player_position);
  const Vec2 a = s.target_at[20];
  const Vec2 b = s.target_at[21];
  const float aim = s.aim_at({(a.x + b.x) / 2, (a.y + b.y) / 2});
  const NetworkTime judged = at_tick(20, 0.5);
  s.step(aim, judged);
  ASSERT_EQ(s.last_result(), ShotResult::kHit);
  const auto rewound = s.game.hitscan()->history().rewind(s.target, judged);
  ASSERT_TRUE(rewound.has_value());
  const auto shot = find_shot(s.world, 1);
  ASSERT_TRUE(shot.has_value());
  const Schema& sc = schema();
  EXPECT_EQ(s.world.get(*shot, sc.shot_target_owner), 2);
  const Vec2 pose = s.world.get(*shot, sc.shot_target_position);
  EXPECT_NEAR(pose.x, rewound->position.x, 0.006F);
  EXPECT_NEAR(pose.y, rewound->position.z, 0.006F);
  EXPECT_NEAR(s.world.get(*shot, sc.shot_target_radius), rewound->shapes[0].radius, 0.006F);
  // The rewound pose is not the target's present: it walked on since.
  const Vec2 now = s.world.get(s.target, sc.player_position);
  EXPECT_GT(std::fabs(now.x - pose.x), 0.5F);
  // The ray as cast: from where the shooter stood, at the aim sent.
  const Vec2 from = s.world.get(*shot, sc.shot_origin);
  EXPECT_NEAR(from.x, origin.x, 0.006F);
  EXPECT_NEAR(from.y, origin.y, 0.006F);
  EXPECT_NEAR(s.world.get(*shot, sc.shot_aim), aim, 2e-3F);
  // A miss names no target.
  s.step(s.aim_at(s.target_at[20]), at_tick(s.tick.value() - 1));
  ASSERT_EQ(s.last_result(), ShotResult::kMiss);
  EXPECT_EQ(s.world.get(*shot, sc.shot_target_owner), -1);
  EXPECT_EQ(s.world.get(*shot, sc.shot_target_radius), 0.0F);
}

TEST(Hitscan, JudgesBetweenTicksAtTheViewTimesFraction) {
  Shooting s;
  for (int i = 0; i < 30; ++i) s.step();
  const Vec2 a = s.target_at[20];
  const Vec2 b = s.target_at[21];
  const Vec2 half{(a.x + b.x) / 2, (a.y + b.y) / 2};
  s.step(s.aim_at(half), at_tick(20, 0.5));
  EXPECT_EQ(s.last_result(), ShotResult::kHit);
  // Just outside the edge of the blended circle, beside it as seen from the
  // shooter: a miss.
  const Vec2 shooter = s.world.get(s.shooter, schema().player_position);
  const float d = std::hypot(half.x - shooter.x, half.y - shooter.y);
  const Vec2 side{-(half.y - shooter.y) / d, (half.x - shooter.x) / d};
  const float off = kPlayerRadius + 0.1F;
  s.step(s.aim_at({half.x + side.x * off, half.y + side.y * off}), at_tick(20, 0.5));
  EXPECT_EQ(s.last_result(), ShotResult::kMiss);
}

TEST(Hitscan, AStandInOrAnInputWithoutARewindFiresNothing) {
  Shooting s;
  for (int i = 0; i < 10; ++i) s.step();
  s.step(s.aim_at(s.target_at[9]), at_tick(9), /*fallback=*/true);
  EXPECT_FALSE(find_shot(s.world, 1).has_value());
  s.step(s.aim_at(s.target_at[9]), std::nullopt);
  EXPECT_FALSE(find_shot(s.world, 1).has_value());
  ASSERT_NE(s.game.hitscan(), nullptr);
  EXPECT_EQ(s.game.hitscan()->stats().shots, 0u);
}

// The hit history times its ticks at the rate the runtime told the game
// (NetGame::set_tick_rate), 60 Hz until told.
TEST(Hitscan, TheHistoryRunsAtTheRateTheGameWasTold) {
  Shooting s;
  EXPECT_EQ(s.game.tick_rate(), 60u);
  s.step();
  ASSERT_NE(s.game.hitscan(), nullptr);
  EXPECT_EQ(s.game.hitscan()->history().config().tick_rate, 60u);
  Game told;
  told.set_tick_rate(30);
  EXPECT_EQ(told.tick_rate(), 30u);
}

TEST(Hitscan, NeverRewindsAcrossARespawn) {
  Shooting s;
  for (int i = 0; i < 20; ++i) s.step();
  // The last hit point: this shot kills, and the target respawns at the
  // centre (a teleport in the history).
  s.world.set(s.target, schema().player_health, kHitscanDamage);
  s.step(s.aim_at(s.target_at[19]), at_tick(19));
  ASSERT_EQ(s.last_result(), ShotResult::kHit);
  for (int i = 0; i < 3; ++i) s.step();
  // Aimed at where it stood before the respawn, judged at a view time from
  // before it: the rewind stops at the respawn, and the shot misses.
  s.step(s.aim_at(s.target_at[19]), at_tick(19));
  EXPECT_EQ(s.last_result(), ShotResult::kMissTeleported);
  EXPECT_EQ(s.game.hitscan()->stats().teleport_blocked, 1u);
  // Between the tick before the respawn and the respawn itself: the same.
  s.step(s.aim_at(s.target_at[20]), at_tick(20, 0.14));
  EXPECT_EQ(s.last_result(), ShotResult::kMissTeleported);
}

TEST(Hitscan, TheHistoryIsSizedByTheWindow) {
  GameConfig config;
  config.max_rewind = Duration::millis(100);
  Game game(config);
  snapshot::World world(schema().schema);
  populate(world);
  spawn_player(world, 1);
  std::vector<prediction::PlayerInput> none;
  for (std::uint32_t t = 1; t <= 30; ++t)
    prediction::step_authoritative(game, world, Tick(t), prediction::Inputs(none));
  ASSERT_NE(game.hitscan(), nullptr);
  const auto range = game.hitscan()->history().range();
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ((range->newest - range->oldest).since_zero(), Duration::millis(100));
}

}  // namespace
}  // namespace tickwire::arena
