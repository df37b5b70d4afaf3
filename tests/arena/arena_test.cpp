// The reference game's rules, and the determinism prediction relies on.
#include "tickwire/arena/arena.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

namespace tickwire::arena {
namespace {

snapshot::World fresh_world() {
  snapshot::World world(schema().schema);
  populate(world);
  return world;
}

void step(snapshot::World& world, Tick tick, std::span<const PlayerInput> inputs) {
  simulate(world, tick, inputs, {});
  world.quantize();
}

TEST(Arena, WalkingMovesAtWalkingSpeed) {
  auto world = fresh_world();
  const EntityId p = spawn_player(world, 1);
  const Vec2 start = world.get(p, schema().player_position);
  const PlayerInput in{1, Input{{1.0F, 0.0F}, 0.0F, false, false, 0}};
  for (std::uint32_t t = 1; t <= 60; ++t) step(world, Tick(t), {&in, 1});
  EXPECT_NEAR(world.get(p, schema().player_position).x - start.x, kPlayerSpeed, 0.05);
}

TEST(Arena, DashIsFasterAndCoolsDown) {
  auto world = fresh_world();
  const EntityId p = spawn_player(world, 1);
  const float x0 = world.get(p, schema().player_position).x;
  PlayerInput in{1, Input{{1.0F, 0.0F}, 0.0F, true, false, 0}};
  step(world, Tick(1), {&in, 1});
  EXPECT_NEAR(world.get(p, schema().player_position).x - x0, kDashSpeed / 60.0F, 0.02);
  EXPECT_EQ(world.get(p, schema().player_dash_cooldown), kDashCooldownTicks);
}

TEST(Arena, ShootingSpawnsAProjectileThatExpires) {
  auto world = fresh_world();
  spawn_player(world, 3);
  PlayerInput in{3, Input{{}, 0.0F, false, true, 7}};
  step(world, Tick(1), {&in, 1});
  ASSERT_EQ(world.entities(schema().projectile_type).size(), 1u);
  const EntityId shot = world.entities(schema().projectile_type)[0];
  EXPECT_EQ(world.get(shot, schema().projectile_shot_id), 7);
  EXPECT_EQ(world.get(shot, schema().projectile_owner), 3);
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
      inputs.push_back({owner, Input{{unit(rng), unit(rng)},
                                     unit(rng) * 3.0F,
                                     unit(rng) > 0.9F,
                                     unit(rng) > 0.8F,
                                     static_cast<std::uint8_t>(t)}});
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
  EXPECT_TRUE(valid_input(Input{{0.5F, -1.0F}, 1.0F, false, false, 0}));
  EXPECT_FALSE(valid_input(Input{{std::nanf(""), 0.0F}, 0.0F, false, false, 0}));
  EXPECT_FALSE(valid_input(Input{{2.0F, 0.0F}, 0.0F, false, false, 0}));
  EXPECT_FALSE(valid_input(Input{{0.0F, 0.0F}, INFINITY, false, false, 0}));
}

TEST(Arena, SchemaHashIsStable) {
  EXPECT_EQ(schema().schema.hash(), schema().schema.hash());
  EXPECT_NE(schema().schema.hash(), 0u);
}

}  // namespace
}  // namespace tickwire::arena
