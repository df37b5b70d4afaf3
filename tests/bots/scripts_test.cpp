// The bot scripts: deterministic given a seed and what they are shown,
// inputs the game accepts, and the churn schedule within its bounds.

#include "scripts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "arena_setup.h"
#include "sync_check.h"
#include "tickwire/arena/arena.h"

namespace tickwire::arena_bots {
namespace {

// A scripted sequence of views: the bot walks a circle, two others stand.
std::vector<arena::Input> play(const std::string& name, std::uint64_t seed, int ticks = 600) {
  auto script = make_script(name, seed);
  EXPECT_NE(script, nullptr) << name;
  std::vector<arena::Input> inputs;
  const std::vector<Vec2> others = {{5.0F, 5.0F}, {-20.0F, 3.0F}};
  for (int t = 0; t < ticks; ++t) {
    const float a = static_cast<float>(t) * 0.01F;
    ArenaView view{Vec2{10.0F * std::cos(a), 10.0F * std::sin(a)}, others};
    arena::Input input;
    script->input(view, Tick(static_cast<Tick::Rep>(t)), input);
    inputs.push_back(input);
  }
  return inputs;
}

TEST(BotScripts, EveryScriptIsFoundByName) {
  for (const ScriptInfo& info : scripts()) EXPECT_NE(make_script(info.name, 1), nullptr) << info.name;
  EXPECT_EQ(make_script("no-such-script", 1), nullptr);
  EXPECT_NE(script_names().find("sync-test"), std::string::npos);
}

TEST(BotScripts, TheSameSeedPlaysTheSameInputs) {
  for (const ScriptInfo& info : scripts()) {
    EXPECT_EQ(play(info.name, 42), play(info.name, 42)) << info.name;
  }
}

TEST(BotScripts, DifferentSeedsPlayDifferently) {
  for (const char* name : {"wander", "churn", "sync-test"}) EXPECT_NE(play(name, 1), play(name, 2)) << name;
}

TEST(BotScripts, EveryInputIsOneTheGameAccepts) {
  for (const ScriptInfo& info : scripts()) {
    for (const arena::Input& input : play(info.name, 7)) {
      ASSERT_TRUE(arena::valid_input(input)) << info.name << " move " << input.move.x << "," << input.move.y;
    }
  }
}

TEST(BotScripts, IdleStandsStillAndStrafeShoots) {
  for (const arena::Input& input : play("idle", 3)) EXPECT_EQ(input, arena::Input{});
  int shots = 0;
  for (const arena::Input& input : play("strafe", 3)) shots += input.shoot ? 1 : 0;
  EXPECT_GT(shots, 500);
}

TEST(BotScripts, ChaseRunsAtTheNearestOtherPlayer) {
  auto script = make_script("chase", 9);
  const std::vector<Vec2> others = {{10.0F, 0.0F}, {-30.0F, 0.0F}};
  arena::Input input;
  script->input(ArenaView{Vec2{0.0F, 0.0F}, others}, Tick(1), input);
  EXPECT_GT(input.move.x, 0.9F);
  EXPECT_NEAR(input.aim, 0.0F, 1e-4F);
  EXPECT_TRUE(input.shoot);
}

// Steps a script's presence through a minute: a join takes `connect` to be
// welcomed; returns how many times the bot left or came back, checking
// every spell on the way.
int churn_changes(ArenaScript& script, Duration connect) {
  int changes = 0;
  Presence p{true, false, Duration::zero()};
  const Duration step = Duration::millis(10);
  for (Duration t = Duration::zero(); t <= Duration::seconds(60); t = t + step) {
    if (p.joined && !p.connected && p.since_change >= connect) p = {true, true, Duration::zero()};
    const bool wanted = script.wants_connected(p);
    if (wanted == p.joined) {
      p.since_change = p.since_change + step;
      continue;
    }
    const double spell = p.since_change.seconds_f();
    // Plays 3 to 8 s from the welcome, away 1 to 3 s (give or take a step);
    // never leaves while connecting.
    EXPECT_TRUE(!p.joined || p.connected) << "left while connecting";
    if (p.joined) {
      EXPECT_GE(spell, 2.99);
      EXPECT_LE(spell, 8.02);
    } else {
      EXPECT_GE(spell, 0.99);
      EXPECT_LE(spell, 3.02);
    }
    p = {wanted, false, Duration::zero()};
    ++changes;
  }
  return changes;
}

TEST(BotScripts, OnlyChurnLeavesAndItComesBack) {
  for (const ScriptInfo& info : scripts()) {
    auto script = make_script(info.name, 5);
    const int changes = churn_changes(*script, Duration::millis(50));
    if (info.name == "churn") {
      EXPECT_GE(changes, 10) << "churn should leave and rejoin several times a minute";
    } else {
      EXPECT_EQ(changes, 0) << info.name;
    }
  }
}

TEST(BotScripts, ChurnWaitsForASlowConnectAndPlaysFromTheWelcome) {
  // A 12 s handshake (a link of seconds with loss): the bot still plays its
  // full spell after each welcome.
  auto script = make_script("churn", 6);
  const int changes = churn_changes(*script, Duration::seconds(12));
  EXPECT_GE(changes, 4);
}

TEST(BotScripts, BotSeedsDifferPerBotAndRun) {
  EXPECT_NE(bot_seed(1, 0), bot_seed(1, 1));
  EXPECT_NE(bot_seed(1, 0), bot_seed(2, 0));
  EXPECT_EQ(bot_seed(9, 3), bot_seed(9, 3));
}

TEST(BotSyncCheck, TheArenaPassesOnAPlayedWorld) {
  const arena::Schema& s = arena::schema();
  snapshot::World world(s.schema);
  arena::populate(world);
  arena::spawn_player(world, 1);
  arena::spawn_player(world, 2);
  const auto game = bots::testing::arena_setup();
  const bots::SyncCheckResult result =
      bots::run_sync_check(world, Tick(100), 1, 60, {game.get(), game->find("sync-test")}, 77);
  EXPECT_FALSE(result.failure.has_value()) << *result.failure;
  EXPECT_GE(result.checks, 3U);
}

}  // namespace
}  // namespace tickwire::arena_bots
