// Other players predicted with a guess of their input, and the proximity
// rule games state which entities a client predicts with.

#include <gtest/gtest.h>

#include "lockstep.h"
#include "tickwire/prediction/proximity_rule.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::Lockstep;

snapshot::Record stick(const testing::TestSchema& s, Vec2 move) {
  snapshot::Record r(s.schema, s.input);
  r.set(s.move, move);
  return r;
}

// Records what simulate is handed.
struct RecordingGame : testing::TestGame {
  using TestGame::TestGame;
  void simulate(snapshot::World& world, Tick tick, const Inputs& inputs, SimContext& ctx) override {
    seen.assign(inputs.all().begin(), inputs.all().end());
    TestGame::simulate(world, tick, inputs, ctx);
  }
  std::vector<PlayerInput> seen;
};

TEST(RemoteGuess, TheGuessReachesSimulateAsThatPlayersInput) {
  testing::TestSchema s;
  RecordingGame game(s);
  snapshot::World server = testing::make_world(s, {1, 2});
  PredictionConfig config;
  config.input_type = s.input;
  config.player = PlayerId{1};
  ClientPrediction client(
      s.schema, game, [](Tick, snapshot::Record&) {}, config);
  const EntityId mine = game.find_avatar(server, PlayerId{1});
  const EntityId theirs = game.find_avatar(server, PlayerId{2});
  client.predict(mine);
  client.predict(theirs, PredictedRole::kRemotePlayer);
  client.guess_input(theirs, PlayerId{2}, stick(s, {1.0F, 0.0F}));
  client.on_authoritative(Tick(0), server, Lockstep::carried_ids(server));
  const Vec2 before = client.world().get(theirs, s.position);
  ASSERT_EQ(client.sample_and_simulate(Tick(1)), TickOutcome::kPredicted);
  ASSERT_EQ(game.seen.size(), 2U);
  EXPECT_EQ(game.seen[0].player, PlayerId{1});
  EXPECT_EQ(game.seen[1].player, PlayerId{2});
  EXPECT_TRUE(game.seen[1].fallback);
  const Inputs inputs(game.seen);
  ASSERT_NE(inputs.find(PlayerId{2}), nullptr);
  EXPECT_EQ(inputs.find(PlayerId{2})->get(s.move).x, 1.0F);
  EXPECT_NEAR(client.world().get(theirs, s.position).x - before.x, testing::TestGame::kSpeed / 60.0F, 0.011F);
}

TEST(RemoteGuess, RolesKeepTheirGuessesOnlyWhileRemote) {
  Lockstep l({}, {1, 2});
  const EntityId theirs = l.server_game.find_avatar(l.server, PlayerId{2});
  const auto guess = stick(l.s, {0.5F, 0.0F});
  l.client->guess_input(theirs, PlayerId{2}, guess);
  EXPECT_EQ(l.client->guessed_input(theirs), nullptr);  // not predicted yet
  l.client->predict(theirs, PredictedRole::kRemotePlayer);
  EXPECT_EQ(l.client->role(theirs), PredictedRole::kRemotePlayer);
  l.client->guess_input(theirs, PlayerId{1}, guess);  // this client's own player: never guessed
  EXPECT_EQ(l.client->guessed_input(theirs), nullptr);
  l.client->guess_input(theirs, PlayerId{2}, guess);
  ASSERT_NE(l.client->guessed_input(theirs), nullptr);
  l.client->predict(theirs, PredictedRole::kUnowned);  // nobody steers it now
  EXPECT_EQ(l.client->role(theirs), PredictedRole::kUnowned);
  EXPECT_EQ(l.client->guessed_input(theirs), nullptr);
  l.client->predict(theirs, PredictedRole::kRemotePlayer);
  l.client->guess_input(theirs, PlayerId{2}, guess);
  l.client->stop_predicting(theirs);
  EXPECT_EQ(l.client->guessed_input(theirs), nullptr);
  EXPECT_EQ(l.client->role(theirs), PredictedRole::kOwn);  // what an entity not predicted reports
  EXPECT_EQ(l.client->role(l.avatar), PredictedRole::kOwn);
}

TEST(RemoteGuess, ARemotePlayerWalkingStraightIsPredictedWithNoCorrection) {
  Lockstep l({}, {1, 2});
  const EntityId theirs = l.server_game.find_avatar(l.server, PlayerId{2});
  const Vec2 walk{0.6F, -0.3F};
  l.other_inputs.emplace_back(PlayerId{2}, stick(l.s, walk));
  l.other_inputs.back().second.quantize();
  l.client->predict(theirs, PredictedRole::kRemotePlayer);
  // The guess the game would make from its velocity: the same move.
  l.client->guess_input(theirs, PlayerId{2}, l.other_inputs.back().second);
  l.start();
  l.run(300);
  EXPECT_EQ(l.client->stats().mispredictions, 0U);
  EXPECT_EQ(l.client->stats().mispredicted_entities, 0U);
  const Vec2 at = l.client->world().get(theirs, l.s.position);
  // Ahead of the server's newest state by the lead, at its walking speed.
  const float ahead = static_cast<float>(l.lead) * walk.x * testing::TestGame::kSpeed / 60.0F;
  EXPECT_NEAR(at.x, l.server.get(theirs, l.s.position).x + ahead, 0.02F);
}

TEST(ProximityRule, EntersCloserThanItLeaves) {
  ProximityRule rule({.enter = 3.0F, .leave = 4.5F, .hold_snapshots = 0});
  const EntityId id{7};
  const auto ask = [&](float d, bool contact = false) {
    rule.begin();
    const bool wanted = rule.wants(id, d, contact);
    rule.end();
    return wanted;
  };
  EXPECT_FALSE(ask(4.0F));
  EXPECT_TRUE(ask(2.9F));
  EXPECT_TRUE(ask(4.0F));  // inside the leave radius: stays
  EXPECT_FALSE(ask(4.6F));
  EXPECT_FALSE(ask(4.0F));  // outside the enter radius: stays out
}

TEST(ProximityRule, StaysPredictedForAWhileAfterContact) {
  ProximityRule rule({.enter = 3.0F, .leave = 4.5F, .hold_snapshots = 3});
  const EntityId id{7};
  const auto ask = [&](float d, bool contact = false) {
    rule.begin();
    const bool wanted = rule.wants(id, d, contact);
    rule.end();
    return wanted;
  };
  EXPECT_TRUE(ask(1.0F, true));
  EXPECT_TRUE(ask(10.0F));  // thrown far by the push: held
  EXPECT_TRUE(ask(10.0F));
  EXPECT_TRUE(ask(10.0F));
  EXPECT_FALSE(ask(10.0F));
  // Not asked about for a round: forgotten, starts afresh.
  EXPECT_TRUE(ask(1.0F));
  rule.begin();
  rule.end();
  EXPECT_FALSE(ask(4.0F));
  EXPECT_THROW(ProximityRule({.enter = 3.0F, .leave = 2.0F}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::prediction
