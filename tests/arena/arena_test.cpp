// The reference game's rules, and the determinism prediction relies on.
#include "tickwire/arena/arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "tickwire/prediction/sync_test.h"
#include "tickwire/snapshot/codebook.h"

namespace tickwire::arena {
namespace {

snapshot::World fresh_world() {
  snapshot::World world(schema().schema);
  populate(world);
  return world;
}

// One authoritative tick, as the server runs it.
void step(snapshot::World& world, Tick tick, std::span<const PlayerInput> inputs) {
  std::vector<snapshot::Record> records;
  records.reserve(inputs.size());
  for (const auto& in : inputs) records.push_back(to_record(in.input));
  std::vector<prediction::PlayerInput> views;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    views.push_back({prediction::PlayerId{inputs[i].owner}, &records[i], false, std::nullopt, std::nullopt});
  Game game;
  prediction::step_authoritative(game, world, tick, prediction::Inputs(views));
}

TEST(Arena, WalkingMovesAtWalkingSpeed) {
  auto world = fresh_world();
  const EntityId p = spawn_player(world, 1);
  const Vec2 start = world.get(p, schema().player_position);
  const PlayerInput in{1, Input{{1.0F, 0.0F}, 0.0F, false, false, false}};
  for (std::uint32_t t = 1; t <= 60; ++t) step(world, Tick(t), {&in, 1});
  EXPECT_NEAR(world.get(p, schema().player_position).x - start.x, kPlayerSpeed, 0.05);
}

TEST(Arena, DashIsFasterAndCoolsDown) {
  auto world = fresh_world();
  const EntityId p = spawn_player(world, 1);
  const float x0 = world.get(p, schema().player_position).x;
  PlayerInput in{1, Input{{1.0F, 0.0F}, 0.0F, true, false, false}};
  step(world, Tick(1), {&in, 1});
  EXPECT_NEAR(world.get(p, schema().player_position).x - x0, kDashSpeed / 60.0F, 0.02);
  EXPECT_EQ(world.get(p, schema().player_dash_cooldown), kDashCooldownTicks);
}

TEST(Arena, ShootingSpawnsAProjectileThatExpires) {
  auto world = fresh_world();
  spawn_player(world, 3);
  PlayerInput in{3, Input{{}, 0.0F, false, true, false}};
  step(world, Tick(1), {&in, 1});
  ASSERT_EQ(world.entities(schema().projectile_type).size(), 1u);
  const EntityId shot = world.entities(schema().projectile_type)[0];
  EXPECT_EQ(world.get(shot, schema().projectile_key.owner), 3);
  in.input.shoot = false;
  for (std::uint32_t t = 2; t < 2 + kProjectileLifeTicks + 2; ++t) step(world, Tick(t), {&in, 1});
  EXPECT_TRUE(world.entities(schema().projectile_type).empty());
}

TEST(Arena, PlayersPushEachOtherApart) {
  auto world = fresh_world();
  const EntityId a = spawn_player(world, 1);
  const EntityId b = spawn_player(world, 2);
  world.set(a, schema().player_position, Vec2{0.0F, 30.0F});
  world.set(b, schema().player_position, Vec2{0.3F, 30.0F});
  step(world, Tick(1), {});
  const float dx = world.get(b, schema().player_position).x - world.get(a, schema().player_position).x;
  EXPECT_NEAR(dx, 2.0F * kPlayerRadius, 0.02);
}

// A client predicting a few players in a crowd pushes them exactly as a
// walk over every pair in id order would, moving only its own; it merely
// skips the pairs of which it predicts neither.
TEST(Arena, AClientPushesWhatItPredictsAsAWalkOverEveryPairWould) {
  const std::uint64_t seed = 7;
  std::cout << "seed=" << seed << "\n";
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> spread(-2.0F, 2.0F);
  auto world = fresh_world();
  std::vector<EntityId> players;
  for (std::uint32_t owner = 1; owner <= 24; ++owner) {
    players.push_back(spawn_player(world, owner));
    world.set(players.back(), schema().player_position, Vec2{spread(rng), 30.0F + spread(rng)});
  }
  world.quantize();
  std::sort(players.begin(), players.end());
  std::vector<std::uint8_t> mask(players.back().value + 1, 0);
  for (const std::size_t k : {3U, 11U, 12U, 20U}) mask[players[k].value] = 1;

  // The walk over every pair, as the oracle.
  std::vector<Vec2> start;
  start.reserve(players.size());
  for (const EntityId id : players) start.push_back(world.get(id, schema().player_position));
  std::vector<Vec2> expected = start;
  for (std::size_t i = 0; i < players.size(); ++i) {
    for (std::size_t j = i + 1; j < players.size(); ++j) {
      const Vec2 d{expected[j].x - expected[i].x, expected[j].y - expected[i].y};
      const float dist = std::sqrt(d.x * d.x + d.y * d.y);
      const float overlap = 2.0F * kPlayerRadius - dist;
      if (overlap <= 0.0F) continue;
      const Vec2 n = dist > 1e-4F ? Vec2{d.x / dist, d.y / dist} : Vec2{1.0F, 0.0F};
      const float half = overlap * 0.5F;
      if (mask[players[i].value] != 0) expected[i] = {expected[i].x - n.x * half, expected[i].y - n.y * half};
      if (mask[players[j].value] != 0) expected[j] = {expected[j].x + n.x * half, expected[j].y + n.y * half};
    }
  }

  struct NoSpawns final : prediction::SpawnHook {
    EntityId spawn(snapshot::World&, snapshot::TypeId, const prediction::SpawnKey&, prediction::PlayerId, Tick,
                   std::uint32_t) override {
      ADD_FAILURE() << "nothing spawns here";
      return EntityId{};
    }
  } hook;
  prediction::SimContext ctx(Tick(1), false, mask, hook);
  Game game;
  game.simulate(world, Tick(1), prediction::Inputs(std::span<const prediction::PlayerInput>()), ctx);
  int moved = 0;
  for (std::size_t k = 0; k < players.size(); ++k) {
    const Vec2 got = world.get(players[k], schema().player_position);
    // Exact: the same float operations in the same order.
    EXPECT_EQ(got.x, expected[k].x) << "player " << k;
    EXPECT_EQ(got.y, expected[k].y) << "player " << k;
    moved += got != start[k] ? 1 : 0;
  }
  EXPECT_EQ(moved, 4) << "the crowd should push every predicted player, and only those";
}

TEST(Arena, PlatformsCarryWhoeverStandsOnThem) {
  auto world = fresh_world();
  const EntityId p = spawn_player(world, 1);
  const EntityId platform = world.entities(schema().platform_type)[0];
  const Tick start(100);
  world.set(platform, schema().platform_position, platform_position_at(0, start));
  world.set(p, schema().player_position, platform_position_at(0, start));
  world.quantize();
  for (std::uint32_t t = start.value() + 1; t <= start.value() + 60; ++t) step(world, Tick(t), {});
  const Vec2 pp = world.get(p, schema().player_position);
  const Vec2 plat = world.get(platform, schema().platform_position);
  EXPECT_NEAR(pp.x, plat.x, 0.05);
  EXPECT_NEAR(pp.y, plat.y, 0.05);
}

TEST(Arena, PlatformPathIsAFunctionOfTheTick) {
  EXPECT_EQ(platform_position_at(1, Tick(7)), platform_position_at(1, Tick(7 + kPlatformPeriodTicks)));
  EXPECT_NE(platform_position_at(1, Tick(7)), platform_position_at(1, Tick(100)));
}

// Same inputs, same world: bit for bit, which prediction depends on.
TEST(Arena, SimulateIsDeterministic) {
  const std::uint64_t seed = 99;
  std::cout << "seed=" << seed << "\n";
  std::mt19937_64 rng(seed);
  auto a = fresh_world();
  for (std::uint32_t owner = 1; owner <= 8; ++owner) spawn_player(a, owner);
  auto b = a;
  std::uniform_real_distribution<float> unit(-1.0F, 1.0F);
  for (std::uint32_t t = 1; t <= 600; ++t) {
    std::vector<PlayerInput> inputs;
    for (std::uint32_t owner = 1; owner <= 8; ++owner) {
      inputs.push_back(
          {owner, Input{{unit(rng), unit(rng)}, unit(rng) * 3.0F, unit(rng) > 0.9F, unit(rng) > 0.8F, false}});
    }
    step(a, Tick(t), inputs);
    step(b, Tick(t), inputs);
  }
  ASSERT_EQ(a.size(), b.size());
  a.for_each([&](EntityId id) {
    const auto sa = a.slots(id);
    const auto sb = b.slots(id);
    ASSERT_TRUE(std::equal(sa.begin(), sa.end(), sb.begin(), sb.end())) << "entity " << id.value;
  });
}

TEST(Arena, RejectsNonFiniteOrOutOfRangeInputs) {
  EXPECT_TRUE(valid_input(Input{{0.5F, -1.0F}, 1.0F, false, false, false}));
  EXPECT_FALSE(valid_input(Input{{std::nanf(""), 0.0F}, 0.0F, false, false, false}));
  EXPECT_FALSE(valid_input(Input{{2.0F, 0.0F}, 0.0F, false, false, false}));
  EXPECT_FALSE(valid_input(Input{{0.0F, 0.0F}, INFINITY, false, false, false}));
}

// The prediction sync test: every 8 ticks the client rolls back and runs
// the game again; any difference in state fails with both states.
TEST(Arena, PassesTheSyncTest) {
  auto world = fresh_world();
  spawn_player(world, 1);
  spawn_player(world, 2);
  Game game;
  prediction::SyncTestConfig config;
  config.input_type = schema().input_type;
  config.player = prediction::PlayerId{1};
  auto sampler = [](Tick tick, snapshot::Record& r) {
    // Inputs that change with the tick: moving, turning, dashing, shooting.
    const auto t = static_cast<float>(tick.value());
    r.set(schema().input_move, Vec2{std::cos(t * 0.05F), std::sin(t * 0.031F)});
    r.set(schema().input_aim, std::fmod(t * 0.1F, 6.0F) - 3.0F);
    r.set(schema().input_dash, tick.value() % 97 == 0);
    r.set(schema().input_shoot, tick.value() % 20 == 0);
  };
  prediction::SyncTest test(schema().schema, game, sampler, world, Tick(0), config);
  for (int i = 0; i < 600; ++i) {
    const auto failure = test.advance();
    ASSERT_FALSE(failure.has_value()) << failure->describe();
  }
  EXPECT_GT(test.checks(), 50u);
}

TEST(Arena, InputRecordRoundTrips) {
  const Input in{{0.5F, -0.25F}, 1.0F, true, false, true};
  const Input out = from_record(to_record(in));
  EXPECT_NEAR(out.move.x, 0.5F, 0.01F);
  EXPECT_NEAR(out.move.y, -0.25F, 0.01F);
  EXPECT_NEAR(out.aim, 1.0F, 0.01F);
  EXPECT_TRUE(out.dash);
  EXPECT_TRUE(out.fire);
  EXPECT_FALSE(out.shoot);
}

TEST(Arena, SchemaHashIsStable) {
  EXPECT_EQ(schema().schema.hash(), schema().schema.hash());
  EXPECT_NE(schema().schema.hash(), 0u);
}

TEST(ArenaNetGame, EachClientIsSentItsNearestEntities) {
  const auto& s = schema();
  Game game(GameConfig{4});
  snapshot::World world(s.schema);
  for (std::uint32_t owner = 1; owner <= 6; ++owner) {
    const auto id = game.avatar(world, prediction::PlayerId{owner});
    ASSERT_FALSE(id.has_value());
    game.player_joined(world, prediction::PlayerId{owner});
    world.set(*game.avatar(world, prediction::PlayerId{owner}), s.player_position,
              Vec2{static_cast<float>(owner) * 3.0F, 0.0F});
  }
  game.before_snapshots(world);
  const auto relevant = game.relevancy(world, prediction::PlayerId{1});
  ASSERT_TRUE(relevant);
  std::vector<std::uint32_t> sent;
  world.for_each([&](EntityId id) {
    if (relevant(id, *world.type_of(id))) sent.push_back(static_cast<std::uint32_t>(world.get(id, s.player_owner)));
  });
  // Player 1 stands at x = 3: itself and players 2, 3 and 4 are nearest.
  EXPECT_EQ(sent, (std::vector<std::uint32_t>{1, 2, 3, 4}));
  // With no limit, everything is sent.
  Game all;
  EXPECT_FALSE(all.relevancy(world, prediction::PlayerId{1}));
}

TEST(ArenaNetGame, TheLeavingPlayerTakesItsProjectilesAlong) {
  const auto& s = schema();
  Game game;
  snapshot::World world(s.schema);
  game.player_joined(world, prediction::PlayerId{7});
  Input shoot;
  shoot.shoot = true;
  const snapshot::Record input = to_record(shoot);
  const prediction::PlayerInput in{prediction::PlayerId{7}, &input, false, std::nullopt, std::nullopt};
  prediction::step_authoritative(game, world, Tick(1), prediction::Inputs(std::span(&in, 1)));
  ASSERT_EQ(world.entities(s.projectile_type).size(), 1u);
  game.player_left(world, prediction::PlayerId{7});
  EXPECT_TRUE(world.entities(s.projectile_type).empty());
  EXPECT_FALSE(game.avatar(world, prediction::PlayerId{7}).has_value());
}

}  // namespace
}  // namespace tickwire::arena

namespace tickwire::arena {
namespace {

// The codebook the arena ships must fit today's schema: after a schema
// change scripts/train_codebook.sh trains it again (a stale one would
// quietly leave every server on adaptive models).
TEST(ArenaCodebook, TheShippedOneFitsTheSchema) {
  const Game game;
  const auto book = game.snapshot_codebook();
  ASSERT_NE(book, nullptr) << "examples/arena/data/arena.twcb does not fit the arena's schema: run "
                              "scripts/train_codebook.sh and rebuild";
  EXPECT_TRUE(snapshot::codebook_fits(*book, schema().schema));
  EXPECT_EQ(game.snapshot_codebook(), book);  // read once, shared
}

}  // namespace
}  // namespace tickwire::arena
