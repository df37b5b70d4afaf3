// The prediction sync test: every few ticks the client's machinery rolls
// every entity back and simulates again; any difference fails with both
// states. Run with the player at the ball, so that contacts, kicks and
// goals all happen during the replays.

#include "tickwire/prediction/sync_test.h"

#include <gtest/gtest.h>

#include <cmath>

#include "pitch/game.h"

namespace pitch {
namespace {

namespace prediction = tickwire::prediction;

void run_sync_test(std::uint32_t tick_rate, std::uint32_t check_distance) {
  const Schema& s = schema();
  Game game(GameConfig{.tick_rate = tick_rate, .match_seconds = 20});
  tickwire::snapshot::World world(s.schema);
  game.populate(world);
  for (std::uint32_t owner = 1; owner <= 4; ++owner) game.player_joined(world, prediction::PlayerId{owner});
  world.set(*find_player(world, 1), s.player_position, Vec2{-1.5F, 0.0F});
  world.quantize();
  prediction::SyncTestConfig config;
  config.input_type = s.input_type;
  config.player = prediction::PlayerId{1};
  config.tick_rate = tick_rate;
  config.check_distance = check_distance;
  auto sampler = [](Tick tick, tickwire::snapshot::Record& r) {
    // Towards the far goal with a wobble, kicking now and then.
    const auto t = static_cast<float>(tick.value());
    to_record(Input{{std::cos(t * 0.013F), 0.6F * std::sin(t * 0.07F)}, tick.value() % 17 == 0}, r);
  };
  prediction::SyncTest test(s.schema, game, sampler, world, Tick(0), config);
  for (std::uint32_t i = 0; i < tick_rate * 30; ++i) {
    const auto failure = test.advance();
    ASSERT_FALSE(failure.has_value()) << failure->describe();
  }
  EXPECT_GT(test.checks(), 20u);
}

TEST(PitchSync, PassesTheSyncTestAt60Hz) { run_sync_test(60, 8); }
TEST(PitchSync, PassesTheSyncTestAt30Hz) { run_sync_test(30, 5); }

}  // namespace
}  // namespace pitch
