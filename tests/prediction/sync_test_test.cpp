#include "tickwire/prediction/sync_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "test_game.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::TestGame;
using testing::TestSchema;

void sampler(const TestSchema& s, Tick t, snapshot::Record& r) {
  const float a = static_cast<float>(t.value()) * 0.07F;
  r.set(s.move, Vec2{std::cos(a), std::sin(a * 0.5F)});
  r.set(s.fire, t.value() % 17 == 0);
}

TEST(SyncTest, ADeterministicGamePasses) {
  TestSchema s;
  TestGame game(s);
  const snapshot::World world = testing::make_world(s, {1});
  SyncTest test(s.schema, game, [&](Tick t, snapshot::Record& r) { sampler(s, t, r); }, world, Tick(100),
                {.input_type = s.input, .player = PlayerId{1}, .check_distance = 7});
  for (int i = 0; i < 600; ++i) {
    const auto failure = test.advance();
    ASSERT_FALSE(failure.has_value()) << failure->describe();
  }
  EXPECT_EQ(test.checks(), 600U / 7U);
  EXPECT_GT(test.prediction().stats().spawns_predicted, 10U);  // spawns were rolled back and checked too
  EXPECT_GT(test.prediction().stats().replayed_ticks, 500U);
}

// Keeps a counter outside the World: each run of a tick moves the player a
// little further than the last, so a replay cannot reproduce the first run.
class LeakyGame : public TestGame {
 public:
  explicit LeakyGame(const TestSchema& s) : TestGame(s), s_(s) {}
  void simulate(snapshot::World& world, Tick tick, const Inputs& inputs, SimContext& ctx) override {
    TestGame::simulate(world, tick, inputs, ctx);
    ++calls_;
    for (EntityId id : world.entities(s_.player)) {
      Vec2 p = world.get(id, s_.position);
      if (calls_ > 50) p.y += 0.5F;  // a hidden state that kicks in late
      world.set(id, s_.position, p);
    }
  }

 private:
  const TestSchema& s_;
  int calls_ = 0;
};

TEST(SyncTest, HiddenStateIsCaughtWithTheTickAndBothStates) {
  TestSchema s;
  LeakyGame game(s);
  const snapshot::World world = testing::make_world(s, {1});
  SyncTest test(s.schema, game, [&](Tick t, snapshot::Record& r) { sampler(s, t, r); }, world, Tick(0),
                {.input_type = s.input, .player = PlayerId{1}, .check_distance = 8});
  std::optional<SyncFailure> failure;
  for (int i = 0; i < 200 && !failure; ++i) failure = test.advance();
  ASSERT_TRUE(failure.has_value());
  // The first 50 calls are the ticks 1..48 plus replays of 1..8 and more:
  // whichever tick it is, its two runs differ and the report shows both.
  EXPECT_GT(failure->tick.value(), 0U);
  EXPECT_NE(failure->first_checksum, failure->second_checksum);
  EXPECT_NE(failure->first_state, failure->second_state);
  const std::string report = failure->describe();
  EXPECT_NE(report.find("tick " + std::to_string(failure->tick.value())), std::string::npos);
  EXPECT_NE(report.find("position="), std::string::npos);
  EXPECT_NE(failure->differences.find("entity 0: differs in position"), std::string::npos) << failure->differences;
  std::printf("%s", report.c_str());
  // Stays failed.
  EXPECT_TRUE(test.advance().has_value());
}

}  // namespace
}  // namespace tickwire::prediction
