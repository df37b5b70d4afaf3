#include <gtest/gtest.h>

#include "lockstep.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::Lockstep;

// Fires once, at client tick `fire_at`, walking right.
void fire_once_at(Lockstep& l, std::uint32_t fire_at) {
  l.stick = [fire_at](Tick t, snapshot::Record& r, const testing::TestSchema& s) {
    r.set(s.move, Vec2{1.0F, 0.0F});
    r.set(s.fire, t.value() == fire_at);
  };
}

std::vector<EntityId> projectiles(const snapshot::World& w, const testing::TestSchema& s) {
  auto ids = w.entities(s.projectile);
  return {ids.begin(), ids.end()};
}

TEST(PredictedSpawn, TheLocalShotIsMatchedWithTheServersEntity) {
  Lockstep l;
  fire_once_at(l, 20);
  l.start();
  l.run(20);
  // Fired this tick: the shot exists on the client, long before the server fires.
  auto local = projectiles(l.client->world(), l.s);
  ASSERT_EQ(local.size(), 1U);
  EXPECT_GE(local[0].value, 65536U);  // from the local id range
  EXPECT_TRUE(l.client->predicts(local[0]));
  EXPECT_TRUE(l.client->take_spawn_events().empty());

  l.run(static_cast<int>(l.lead + l.delay) + 1);
  const auto events = l.client->take_spawn_events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].outcome, SpawnOutcome::kConfirmed);
  EXPECT_EQ(events[0].local, local[0]);
  EXPECT_EQ(events[0].spawn_tick, Tick(20));
  ASSERT_TRUE(events[0].server.has_value());
  const EntityId server_id = *events[0].server;
  EXPECT_LT(server_id.value, 65536U);
  EXPECT_FALSE(l.client->world().contains(local[0]));
  EXPECT_TRUE(l.client->predicts(server_id));
  EXPECT_EQ(projectiles(l.client->world(), l.s), std::vector<EntityId>{server_id});
  // Predicted from the server's state, it agrees with the server.
  l.run(5);
  const snapshot::World ref = l.server_at_client_tick();
  EXPECT_EQ(l.client->world().get(server_id, l.s.shot_position), ref.get(server_id, l.s.shot_position));
  EXPECT_EQ(l.client->stats().spawns_confirmed, 1U);
  EXPECT_EQ(l.client->stats().spawns_rejected, 0U);
  EXPECT_EQ(l.client->stats().mispredictions, 0U);
}

TEST(PredictedSpawn, AShotTheServerNeverConfirmsIsRemoved) {
  PredictionConfig c;
  c.spawn_confirm_ticks = 10;
  Lockstep l(c);
  l.server_game.allow_shots = false;  // the server knows something the client does not
  fire_once_at(l, 20);
  l.start();
  l.run(21);
  ASSERT_EQ(projectiles(l.client->world(), l.s).size(), 1U);
  const EntityId local = projectiles(l.client->world(), l.s)[0];
  l.run(static_cast<int>(l.lead + l.delay) + 12);
  const auto events = l.client->take_spawn_events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].outcome, SpawnOutcome::kRejected);
  EXPECT_EQ(events[0].local, local);
  EXPECT_TRUE(projectiles(l.client->world(), l.s).empty());
  EXPECT_FALSE(l.client->predicts(local));
}

TEST(PredictedSpawn, AReplayBeforeTheSpawnTickKeepsTheLocalId) {
  Lockstep l;
  fire_once_at(l, 20);
  // A correction for a tick before the shot arrives after the client fired.
  l.server_hook = [&](Tick t, snapshot::World& w) {
    if (t == Tick(18)) w.set(l.avatar, l.s.position, Vec2{-5, -5});
  };
  l.start();
  l.run(20);
  const EntityId local = projectiles(l.client->world(), l.s).at(0);
  const Vec2 before = l.client->world().get(local, l.s.shot_position);
  l.run(static_cast<int>(l.lead + l.delay) - 2);  // snapshot 18 arrives: replay from 19 respawns the shot
  EXPECT_EQ(l.client->stats().replays, 1U);
  EXPECT_EQ(projectiles(l.client->world(), l.s), std::vector<EntityId>{local});
  // Respawned from the corrected avatar position.
  EXPECT_NE(l.client->world().get(local, l.s.shot_position).x, before.x);
  EXPECT_TRUE(l.client->take_spawn_events().empty());
}

TEST(PredictedSpawn, ACorrectionThatUndoesTheShotRemovesIt) {
  Lockstep l;
  fire_once_at(l, 20);
  // The server puts the weapon on cooldown at tick 15: the shot at 20 never happens.
  l.server_hook = [&](Tick t, snapshot::World& w) {
    if (t == Tick(15)) w.set(l.avatar, l.s.cooldown, 30);
  };
  l.start();
  l.run(20);
  ASSERT_EQ(projectiles(l.client->world(), l.s).size(), 1U);
  l.run(static_cast<int>(l.lead + l.delay));
  const auto events = l.client->take_spawn_events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].outcome, SpawnOutcome::kRejected);
  EXPECT_TRUE(projectiles(l.client->world(), l.s).empty());
}

TEST(PredictedSpawn, DrawingContinuesAcrossTheMatch) {
  Lockstep l;
  fire_once_at(l, 20);
  l.start();
  snapshot::World out(l.s.schema, l.client->world_config());
  float largest = 0.0F;
  std::optional<Vec2> last;
  for (int i = 0; i < 40; ++i) {
    l.step();
    l.client->render(NetworkTime::from_tick(60, l.client_tick, NetworkTime::kUnitsPerTick / 2), out);
    const auto shots = projectiles(out, l.s);
    if (shots.size() != 1) continue;
    const Vec2 p = out.get(shots[0], l.s.shot_position);
    if (last) largest = std::max(largest, std::hypot(p.x - last->x, p.y - last->y));
    last = p;
  }
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(l.client->stats().spawns_confirmed, 1U);
  // One tick of shot travel, with a margin for quantization.
  EXPECT_LE(largest, testing::TestGame::kShotSpeed / 60.0F + 0.05F);
}

}  // namespace
}  // namespace tickwire::prediction
