// Pitch's rules, step by step: determinism, goals and the ball's return to
// the centre spot, contacts, kicks, the kick-off pause, the match clock and
// the tick rate.

#include "pitch/game.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace pitch {
namespace {

namespace snapshot = tickwire::snapshot;
namespace prediction = tickwire::prediction;

const Schema& s = schema();

// A match with its scenery, run through the server's step.
struct Match {
  explicit Match(GameConfig config = {}) : game(config), world(s.schema) { game.populate(world); }

  EntityId join(std::uint32_t owner) {
    game.player_joined(world, prediction::PlayerId{owner});
    return *find_player(world, owner);
  }
  // One tick with these players' inputs.
  void step(const std::vector<std::pair<std::uint32_t, Input>>& inputs = {}) {
    records.clear();
    for (const auto& [owner, in] : inputs) records.push_back(to_record(in));
    std::vector<prediction::PlayerInput> all;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      prediction::PlayerInput in;
      in.player = prediction::PlayerId{inputs[i].first};
      in.input = &records[i];
      all.push_back(in);
    }
    tick = Tick(tick.value() + 1);
    prediction::step_authoritative(game, world, tick, prediction::Inputs(all));
  }
  void end_kickoff() { world.set(board(), s.kickoff, 0); }
  EntityId ball() const { return *find_ball(world); }
  EntityId board() const { return *find_scoreboard(world); }
  void place_ball(Vec2 p, Vec2 v) {
    world.set(ball(), s.ball_position, p);
    world.set(ball(), s.ball_velocity, v);
    world.quantize(ball());
  }
  void place(EntityId player, Vec2 p) {
    world.set(player, s.player_position, p);
    world.quantize(player);
  }

  Game game;
  snapshot::World world;
  Tick tick{0};
  std::vector<snapshot::Record> records;
};

Input towards(float x, float y, bool kick = false) { return Input{{x, y}, kick}; }

TEST(Pitch, PopulatesBallScoreboardAndGoals) {
  Match m;
  EXPECT_EQ(m.ball().value, 0u);
  EXPECT_EQ(m.world.entities(s.goal_type).size(), 2u);
  EXPECT_EQ(m.world.get(m.board(), s.tick_rate), 60);
  EXPECT_EQ(m.world.get(m.board(), s.seconds_left), 300);
  EXPECT_GT(m.world.get(m.board(), s.kickoff), 0);
}

TEST(Pitch, JoinsBalanceTheTeamsAndLeavingRemovesThePlayer) {
  Match m;
  const EntityId a = m.join(1);
  const EntityId b = m.join(2);
  const EntityId c = m.join(3);
  EXPECT_EQ(m.world.get(a, s.player_team), kHome);
  EXPECT_EQ(m.world.get(b, s.player_team), kAway);
  EXPECT_EQ(m.world.get(c, s.player_team), kHome);
  EXPECT_LT(m.world.get(a, s.player_position).x, 0.0F);
  EXPECT_GT(m.world.get(b, s.player_position).x, 0.0F);
  m.game.player_left(m.world, prediction::PlayerId{2});
  EXPECT_FALSE(find_player(m.world, 2).has_value());
  EXPECT_EQ(smaller_team(m.world), kAway);
}

TEST(Pitch, SimulatingTwiceGivesTheSameWorld) {
  Match a;
  Match b;
  for (std::uint32_t owner = 1; owner <= 6; ++owner) {
    a.join(owner);
    b.join(owner);
  }
  for (int t = 0; t < 900; ++t) {
    std::vector<std::pair<std::uint32_t, Input>> inputs;
    for (std::uint32_t owner = 1; owner <= 6; ++owner) {
      const float phase = static_cast<float>(t) * 0.01F * static_cast<float>(owner);
      inputs.emplace_back(owner, towards(std::cos(phase), std::sin(phase * 0.7F), t % 23 == 0));
    }
    a.step(inputs);
    b.step(inputs);
    ASSERT_EQ(a.world.ids().size(), b.world.ids().size());
    for (const EntityId id : a.world.ids()) {
      const auto x = a.world.slots(id);
      const auto y = b.world.slots(id);
      ASSERT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "entity " << id.value << " at tick " << t;
    }
  }
}

TEST(Pitch, AGoalScoresAndSendsTheBallBackToTheCentreWithATeleport) {
  Match m;
  m.end_kickoff();
  m.place_ball({kHalfLength - 0.5F, 1.0F}, {12.0F, 0.0F});
  const auto teleports = m.world.get(m.ball(), s.ball_teleports);
  for (int i = 0; i < 20 && m.world.get(m.board(), s.score_home) == 0; ++i) m.step();
  EXPECT_EQ(m.world.get(m.board(), s.score_home), 1);
  EXPECT_EQ(m.world.get(m.board(), s.score_away), 0);
  EXPECT_EQ(m.world.get(m.board(), s.last_scorer), kHome);
  EXPECT_EQ(m.world.get(m.ball(), s.ball_position), (Vec2{}));
  EXPECT_EQ(m.world.get(m.ball(), s.ball_velocity), (Vec2{}));
  EXPECT_EQ(m.world.get(m.ball(), s.ball_teleports), (teleports + 1) % 4);
  EXPECT_EQ(m.world.get(m.board(), s.kickoff), ticks_in(kKickoffSeconds, 60));
}

TEST(Pitch, TheAwayTeamScoresInTheHomeGoal) {
  Match m;
  m.end_kickoff();
  m.place_ball({-kHalfLength + 0.5F, -2.0F}, {-12.0F, 0.0F});
  for (int i = 0; i < 20 && m.world.get(m.board(), s.score_away) == 0; ++i) m.step();
  EXPECT_EQ(m.world.get(m.board(), s.score_away), 1);
  EXPECT_EQ(m.world.get(m.board(), s.last_scorer), kAway);
}

TEST(Pitch, TheBallBouncesOffTheEndLineBesideTheGoal) {
  Match m;
  m.end_kickoff();
  m.place_ball({kHalfLength - 0.5F, 10.0F}, {12.0F, 0.0F});
  for (int i = 0; i < 5; ++i) m.step();
  EXPECT_EQ(m.world.get(m.board(), s.score_home), 0);
  EXPECT_LT(m.world.get(m.ball(), s.ball_velocity).x, 0.0F);
  EXPECT_LE(m.world.get(m.ball(), s.ball_position).x, kHalfLength);
}

TEST(Pitch, TheBallWaitsOnTheSpotDuringTheKickoff) {
  Match m;
  const EntityId p = m.join(1);
  m.place(p, {-1.0F, 0.0F});
  for (int i = 0; i < 10; ++i) m.step({{1, towards(1.0F, 0.0F, true)}});
  EXPECT_EQ(m.world.get(m.ball(), s.ball_position), (Vec2{}));
  EXPECT_GT(m.world.get(m.board(), s.kickoff), 0);
}

TEST(Pitch, OverlappingPlayersPushEachOtherApart) {
  Match m;
  const EntityId a = m.join(1);
  const EntityId b = m.join(2);
  m.place(a, {5.0F, 5.0F});
  m.place(b, {5.4F, 5.0F});
  m.step();
  const Vec2 pa = m.world.get(a, s.player_position);
  const Vec2 pb = m.world.get(b, s.player_position);
  EXPECT_NEAR(pb.x - pa.x, 2.0F * kPlayerRadius, 0.02F);
  EXPECT_NEAR(pa.x + pb.x, 10.4F, 0.02F) << "each moved half the overlap";
}

TEST(Pitch, APlayerRunningIntoTheBallPushesIt) {
  Match m;
  m.end_kickoff();
  const EntityId p = m.join(1);
  m.place(p, {-2.0F, 0.0F});
  for (int i = 0; i < 30; ++i) m.step({{1, towards(1.0F, 0.0F)}});
  const Vec2 ball = m.world.get(m.ball(), s.ball_position);
  const Vec2 player = m.world.get(p, s.player_position);
  EXPECT_GT(ball.x, 0.5F);
  EXPECT_GT(m.world.get(m.ball(), s.ball_velocity).x, 0.0F);
  EXPECT_GE(ball.x - player.x, kPlayerRadius + kBallRadius - 0.02F) << "never inside the player";
  EXPECT_EQ(m.world.get(m.ball(), s.ball_last_touch), 1);
}

TEST(Pitch, AKickSendsTheBallAwayAndRestsTheFoot) {
  Match m;
  m.end_kickoff();
  const EntityId p = m.join(1);
  m.place(p, {-1.1F, 0.0F});
  m.step({{1, towards(0.0F, 0.0F, true)}});
  const Vec2 v = m.world.get(m.ball(), s.ball_velocity);
  EXPECT_NEAR(v.x, kKickSpeed - kBallDeceleration / 60.0F, 0.05F);
  EXPECT_NEAR(v.y, 0.0F, 0.01F);
  EXPECT_EQ(m.world.get(p, s.player_kick_cooldown), ticks_in(kKickCooldownSeconds, 60) - 1);
}

TEST(Pitch, NoKickOutOfReach) {
  Match m;
  m.end_kickoff();
  const EntityId p = m.join(1);
  m.place(p, {-3.0F, 0.0F});
  m.step({{1, towards(0.0F, 0.0F, true)}});
  EXPECT_EQ(m.world.get(m.ball(), s.ball_velocity), (Vec2{}));
  EXPECT_EQ(m.world.get(p, s.player_kick_cooldown), 0);
}

TEST(Pitch, TheMatchClockRunsOutAndANewMatchStarts) {
  Match m(GameConfig{.tick_rate = 20, .match_seconds = 2});
  m.end_kickoff();
  m.world.set(m.board(), s.score_away, 3);
  m.place_ball({5.0F, 5.0F}, {});
  const auto teleports = m.world.get(m.ball(), s.ball_teleports);
  for (int i = 0; i < 20; ++i) m.step();
  EXPECT_EQ(m.world.get(m.board(), s.seconds_left), 1);
  for (int i = 0; i < 20; ++i) m.step();
  EXPECT_EQ(m.world.get(m.board(), s.clock), 0);
  EXPECT_EQ(m.world.get(m.board(), s.score_away), 0);
  EXPECT_EQ(m.world.get(m.board(), s.seconds_left), 2);
  EXPECT_EQ(m.world.get(m.ball(), s.ball_position), (Vec2{}));
  EXPECT_EQ(m.world.get(m.ball(), s.ball_teleports), (teleports + 1) % 4);
}

// Client ids only grow: a long-running server's client 65537 is not
// mistaken for client 1.
TEST(Pitch, ClientIdsBeyondSixteenBitsFindTheirOwnPlayers) {
  Match m;
  const EntityId first = m.join(1);
  const EntityId later = m.join(65537);
  EXPECT_NE(first, later);
  EXPECT_EQ(find_player(m.world, 65537), later);
  EXPECT_EQ(find_player(m.world, 1), first);
}

// A client's game is made with the default config; the match length its
// server was given reaches it in the scoreboard, so a client predicting the
// ball ends the match on the same tick as the server.
TEST(Pitch, TheMatchLengthComesFromTheWorldNotTheLocalConfig) {
  Match m(GameConfig{.tick_rate = 20, .match_seconds = 2});
  m.game = Game(GameConfig{.tick_rate = 20});  // a client's: 300 s by default
  m.end_kickoff();
  m.world.set(m.board(), s.score_home, 1);
  for (int i = 0; i < 39; ++i) m.step();
  EXPECT_EQ(m.world.get(m.board(), s.score_home), 1);
  m.step();
  EXPECT_EQ(m.world.get(m.board(), s.clock), 0);
  EXPECT_EQ(m.world.get(m.board(), s.score_home), 0);
}

// Speeds are per second: a second of running covers about the same ground
// at any tick rate.
TEST(Pitch, ASecondOfRunningCoversTheSameGroundAtAnyTickRate) {
  std::vector<float> covered;
  for (const std::uint32_t rate : {20u, 30u, 60u, 120u}) {
    Match m;
    m.game.set_tick_rate(rate);
    const EntityId p = m.join(1);
    m.place(p, {-10.0F, 10.0F});
    for (std::uint32_t i = 0; i < rate; ++i) m.step({{1, towards(1.0F, 0.0F)}});
    covered.push_back(m.world.get(p, s.player_position).x + 10.0F);
  }
  // Within the step's discretisation (a twentieth of a second at 20 Hz).
  for (const float c : covered) EXPECT_NEAR(c, covered.back(), 0.25F);
  EXPECT_NEAR(covered.back(), kPlayerSpeed - kPlayerSpeed * kPlayerSpeed / (2.0F * kPlayerAcceleration), 0.05F);
}

TEST(Pitch, AClientStepMovesOnlyWhatItPredicts) {
  Match m;
  m.end_kickoff();
  const EntityId me = m.join(1);
  const EntityId other = m.join(2);
  m.place_ball({3.0F, 3.0F}, {4.0F, 0.0F});
  m.world.set(other, s.player_velocity, Vec2{3.0F, 0.0F});
  std::vector<std::uint8_t> simulated(m.world.id_limit(), 0);
  simulated[me.value] = 1;
  struct NoSpawns : prediction::SpawnHook {
    EntityId spawn(snapshot::World&, snapshot::TypeId, const prediction::SpawnKey&, prediction::PlayerId, Tick,
                   std::uint32_t) override {
      throw std::logic_error("pitch spawns nothing");
    }
  } hook;
  const Vec2 ball = m.world.get(m.ball(), s.ball_position);
  const Vec2 them = m.world.get(other, s.player_position);
  const Vec2 mine = m.world.get(me, s.player_position);
  const auto clock = m.world.get(m.board(), s.clock);
  const snapshot::Record in = to_record(towards(1.0F, 0.0F));
  prediction::PlayerInput pi;
  pi.player = prediction::PlayerId{1};
  pi.input = &in;
  prediction::SimContext ctx(Tick(1), false, simulated, hook);
  m.game.simulate(m.world, Tick(1), prediction::Inputs({&pi, 1}), ctx);
  EXPECT_EQ(m.world.get(m.ball(), s.ball_position), ball);
  EXPECT_EQ(m.world.get(other, s.player_position), them);
  EXPECT_EQ(m.world.get(m.board(), s.clock), clock);
  EXPECT_NE(m.world.get(me, s.player_position), mine);
}

TEST(Pitch, AClientPredictsTheBallOnlyNearItsPlayer) {
  Match m;
  const EntityId me = m.join(1);
  std::vector<EntityId> out;
  m.place(me, {-10.0F, 0.0F});
  m.game.predicted_entities(m.world, prediction::PlayerId{1}, out);
  EXPECT_EQ(out, (std::vector<EntityId>{me}));
  out.clear();
  m.place(me, {-2.0F, 0.0F});
  m.game.predicted_entities(m.world, prediction::PlayerId{1}, out);
  EXPECT_EQ(out, (std::vector<EntityId>{me, m.ball()}));
  EXPECT_EQ(m.game.avatar(m.world, prediction::PlayerId{1}), me);
  EXPECT_FALSE(m.game.avatar(m.world, prediction::PlayerId{9}).has_value());
}

TEST(Pitch, TheGameRunsAtTheRateItIsTold) {
  Game game(GameConfig{.tick_rate = 30});
  EXPECT_TRUE(game.supports_tick_rate(kMinTickRate));
  EXPECT_TRUE(game.supports_tick_rate(kMaxTickRate));
  EXPECT_FALSE(game.supports_tick_rate(kMaxTickRate + 1));
  EXPECT_FALSE(game.supports_tick_rate(kMinTickRate - 1));
  game.set_tick_rate(120);
  EXPECT_EQ(game.config().tick_rate, 120u);
  EXPECT_THROW(game.set_tick_rate(1000), std::invalid_argument);
  EXPECT_EQ(game.config().tick_rate, 120u);
  // The scoreboard tells viewers the rate, and the kick-off pause lasts the
  // same time at the new one.
  snapshot::World world(s.schema);
  game.populate(world);
  const EntityId board = *find_scoreboard(world);
  EXPECT_EQ(world.get(board, s.tick_rate), 120);
  EXPECT_EQ(world.get(board, s.kickoff), ticks_in(kKickoffSeconds, 120));
  EXPECT_THROW(Game(GameConfig{.tick_rate = 5}), std::invalid_argument);
  EXPECT_THROW(Game(GameConfig{.match_seconds = 0}), std::invalid_argument);
  EXPECT_THROW(Game(GameConfig{.ball_predict_radius = NAN}), std::invalid_argument);
}

TEST(Pitch, InputRecordRoundTrips) {
  const Input out = from_record(to_record(Input{{0.5F, -0.25F}, true}));
  EXPECT_NEAR(out.move.x, 0.5F, 0.01F);
  EXPECT_NEAR(out.move.y, -0.25F, 0.01F);
  EXPECT_TRUE(out.kick);
}

}  // namespace
}  // namespace pitch
