// The computer players play the game: a lone chaser scores, and a match of
// chasers, defenders and wanderers keeps the ball on the pitch and sees goals.

#include "pitch/ai.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pitch {
namespace {

namespace prediction = tickwire::prediction;
namespace snapshot = tickwire::snapshot;

struct Team {
  Game game{GameConfig{.tick_rate = 30, .match_seconds = 600}};
  snapshot::World world{schema().schema};
  std::uint32_t tick = 0;

  Team() { game.populate(world); }
  // Every player's input from its script, then one server step.
  template <class Script>
  void step(Script script) {
    std::vector<std::pair<std::uint32_t, snapshot::Record>> records;
    for (const EntityId id : world.entities(schema().player_type)) {
      const auto owner = static_cast<std::uint32_t>(world.get(id, schema().player_owner));
      records.emplace_back(owner, to_record(script(owner, id)));
    }
    std::vector<prediction::PlayerInput> inputs(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      inputs[i].player = prediction::PlayerId{records[i].first};
      inputs[i].input = &records[i].second;
    }
    prediction::step_authoritative(game, world, Tick(++tick), prediction::Inputs(inputs));
  }
  std::int32_t goals(std::int32_t team) const {
    const auto board = *find_scoreboard(world);
    return world.get(board, team == kHome ? schema().score_home : schema().score_away);
  }
};

TEST(PitchAi, ALoneChaserScores) {
  Team t;
  t.game.player_joined(t.world, prediction::PlayerId{1});
  for (int i = 0; i < 30 * 20 && t.goals(kHome) == 0; ++i)
    t.step([&](std::uint32_t, EntityId me) { return chase_ball(t.world, me); });
  EXPECT_GE(t.goals(kHome), 1) << "no goal in 20 s";
}

TEST(PitchAi, AMatchKeepsTheBallInPlayAndSeesGoals) {
  Team t;
  for (std::uint32_t owner = 1; owner <= 8; ++owner) t.game.player_joined(t.world, prediction::PlayerId{owner});
  const auto script = [&](std::uint32_t owner, EntityId me) {
    switch (owner % 4) {
      case 0: return defend_goal(t.world, me);
      case 1: return wander(t.world, me, owner, Tick(t.tick), 30);
      default: return chase_ball(t.world, me);
    }
  };
  const EntityId ball = *find_ball(t.world);
  for (int i = 0; i < 30 * 180; ++i) {
    t.step(script);
    const Vec2 p = t.world.get(ball, schema().ball_position);
    ASSERT_LE(std::fabs(p.x), kHalfLength + kGoalDepth) << "tick " << t.tick;
    ASSERT_LE(std::fabs(p.y), kHalfWidth) << "tick " << t.tick;
  }
  EXPECT_GE(t.goals(kHome) + t.goals(kAway), 1) << "no goal in three minutes";
  std::printf("three minutes of 4 against 4: %d - %d\n", t.goals(kHome), t.goals(kAway));
}

}  // namespace
}  // namespace pitch
