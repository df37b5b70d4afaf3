// Interpolation between the two states around a time, bounded
// extrapolation past the newest, and the entity set following the
// timeline.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "snapshot_fixture.h"
#include "tickwire/snapshot/interpolator.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;
using testing::Link;

struct Timeline {
  KitchenSink k;
  World server{k.schema};
  World client{k.schema};
  Link link{k.schema};
  Interpolator interp{k.schema, InterpolationConfig{4.0}};
  EntityId a;

  Timeline() { a = server.spawn(k.thing); }
  void send(std::uint32_t tick) {
    WorldState s;
    capture(server, Tick(tick), s);
    ASSERT_TRUE(link.send(s, false, 0).has_value());
  }
  SampleMode at(double t) { return interp.sample(link.receiver, t, client); }
};

TEST(Interpolation, OnAndBetweenStatesFollowEachFieldsRule) {
  Timeline tl;
  const auto& k = tl.k;
  const float pi = std::numbers::pi_v<float>;
  tl.server.set(tl.a, k.position, Vec3{0, 10, 0});
  tl.server.set(tl.a, k.yaw, pi - 0.1F);  // crosses pi on the way
  tl.server.set(tl.a, k.heading_deg, 170.0F);
  tl.server.set(tl.a, k.health, 10);
  tl.server.set(tl.a, k.rotation, Quat{0, 0, 0, 1});
  tl.send(10);
  tl.server.set(tl.a, k.position, Vec3{4, 10, -2});
  tl.server.set(tl.a, k.yaw, -pi + 0.1F);
  tl.server.set(tl.a, k.heading_deg, -170.0F);
  tl.server.set(tl.a, k.health, 50);
  tl.server.set(tl.a, k.rotation, Quat{0, std::sin(0.5F), 0, std::cos(0.5F)});  // 1 rad about y
  tl.send(14);

  EXPECT_EQ(tl.at(10.0), SampleMode::kInterpolated);
  EXPECT_NEAR(tl.client.get(tl.a, k.position).x, 0.0F, 1e-4);
  EXPECT_EQ(tl.client.get(tl.a, k.health), 10);

  EXPECT_EQ(tl.at(11.0), SampleMode::kInterpolated);  // a quarter of the way
  EXPECT_NEAR(tl.client.get(tl.a, k.position).x, 1.0F, 0.01);
  EXPECT_NEAR(tl.client.get(tl.a, k.position).z, -0.5F, 0.01);
  EXPECT_NEAR(tl.client.get(tl.a, k.yaw), pi - 0.05F, 0.01);  // the short way, through pi
  EXPECT_NEAR(tl.client.get(tl.a, k.heading_deg), 175.0F, 0.1);
  EXPECT_EQ(tl.client.get(tl.a, k.health), 10);  // step: the older value until the newer tick
  const Quat q = tl.client.get(tl.a, k.rotation);
  EXPECT_NEAR(2.0F * std::atan2(q.y, q.w), 0.25F, 0.01);  // slerp: a quarter of the angle

  EXPECT_EQ(tl.at(14.0), SampleMode::kInterpolated);
  EXPECT_NEAR(tl.client.get(tl.a, k.position).x, 4.0F, 1e-4);
  EXPECT_EQ(tl.client.get(tl.a, k.health), 50);
}

TEST(Interpolation, ExtrapolatesUpToTheLimitThenHolds) {
  Timeline tl;
  const auto& k = tl.k;
  tl.server.set(tl.a, k.position, Vec3{0, 0, 0});
  tl.send(10);
  tl.server.set(tl.a, k.position, Vec3{2, 0, 0});
  tl.send(12);
  EXPECT_EQ(tl.at(14.0), SampleMode::kExtrapolated);
  EXPECT_NEAR(tl.client.get(tl.a, k.position).x, 4.0F, 0.01);
  EXPECT_EQ(tl.at(16.0), SampleMode::kExtrapolated);  // exactly at the 4-tick limit
  EXPECT_NEAR(tl.client.get(tl.a, k.position).x, 6.0F, 0.01);
  EXPECT_EQ(tl.at(30.0), SampleMode::kHeld);  // starved: held at the limit
  EXPECT_NEAR(tl.client.get(tl.a, k.position).x, 6.0F, 0.01);
  EXPECT_EQ(tl.interp.stats().extrapolated, 2U);
  EXPECT_EQ(tl.interp.stats().held, 1U);
  // Before the oldest state: held at it.
  EXPECT_EQ(tl.at(2.0), SampleMode::kHeld);
  EXPECT_NEAR(tl.client.get(tl.a, k.position).x, 0.0F, 0.01);
}

TEST(Interpolation, EntitySetFollowsTheTimeline) {
  Timeline tl;
  const auto& k = tl.k;
  tl.send(10);
  const EntityId b = tl.server.spawn(k.pebble);
  tl.server.despawn(tl.a);
  tl.send(12);
  tl.at(11.0);  // the older state decides: a still there, b not yet
  EXPECT_TRUE(tl.client.contains(tl.a));
  EXPECT_FALSE(tl.client.contains(b));
  tl.at(12.0);
  EXPECT_FALSE(tl.client.contains(tl.a));
  EXPECT_TRUE(tl.client.contains(b));
}

TEST(Interpolation, LeavesPredictedEntitiesToTheGame) {
  Timeline tl;
  const auto& k = tl.k;
  tl.send(10);
  tl.send(12);
  ASSERT_TRUE(tl.client.spawn_at(EntityId{1000}, k.pebble));  // the game's own, predicted
  tl.client.set(EntityId{1000}, k.pebble_position, Vec3{1, 2, 3});
  auto predicted = [](EntityId id) { return id == EntityId{1000}; };
  EXPECT_EQ(tl.interp.sample(tl.link.receiver, 11.0, tl.client, predicted), SampleMode::kInterpolated);
  EXPECT_TRUE(tl.client.contains(EntityId{1000}));
  EXPECT_EQ(tl.client.get(EntityId{1000}, k.pebble_position), (Vec3{1, 2, 3}));
  EXPECT_TRUE(tl.client.contains(tl.a));
}

TEST(Interpolation, StaleEntitiesBlendOverTheirOwnTicks) {
  // Under a tight budget some entities are not refreshed in a packet; they
  // keep the tick their values came from, and interpolation blends over
  // those ticks rather than the states' (so they glide, not stall and jump).
  const KitchenSink k;
  const auto seed = testing::test_seed("Interpolation.StaleEntitiesBlendOverTheirOwnTicks");
  std::mt19937_64 rng(seed);
  World w(k.schema);
  std::vector<EntityId> ids;
  for (int i = 0; i < 150; ++i) ids.push_back(w.spawn(k.pebble));
  SenderConfig sc;
  sc.max_payload = 200;
  Link link(k.schema, sc);
  for (std::uint32_t t = 2; t <= 200; t += 2) {
    for (EntityId id : ids) testing::randomize_pebble(k, w, id, rng);
    WorldState s;
    capture(w, Tick(t), s);
    ASSERT_TRUE(link.send(s, false, 1).has_value());
  }
  const WorldState* older = link.receiver.state(Tick(198));
  const WorldState* newer = link.receiver.state(Tick(200));
  ASSERT_TRUE(older != nullptr && newer != nullptr);
  const EntityState* stale = nullptr;
  for (const EntityState& e : older->entities()) {
    const EntityState* n = newer->find(e.id);
    if (e.updated < Tick(198) && n != nullptr && n->updated == Tick(200) && n->generation == e.generation) {
      stale = &e;
      break;
    }
  }
  ASSERT_NE(stale, nullptr) << "the budget should leave some entity stale at tick 198";
  World from(k.schema);
  World to(k.schema);
  restore(*older, from);
  restore(*newer, to);
  const float a = from.get(stale->id, k.pebble_position).x;
  const float b = to.get(stale->id, k.pebble_position).x;
  const double u = stale->updated.value();
  World client(k.schema);
  Interpolator interp(k.schema);
  interp.sample(link.receiver, 199.0, client);
  const double expected = a + (b - a) * (199.0 - u) / (200.0 - u);
  EXPECT_NEAR(client.get(stale->id, k.pebble_position).x, expected, 0.01);
}

TEST(Interpolation, EmptyBufferWritesNothing) {
  const KitchenSink k;
  SnapshotReceiver r(k.schema);
  World client(k.schema);
  Interpolator interp(k.schema);
  EXPECT_EQ(interp.sample(r, 5.0, client), SampleMode::kEmpty);
  EXPECT_EQ(client.size(), 0U);
}

// An entity whose teleport counter changed between two states is shown as
// the older state until the newer one's tick, then as the newer: never
// between the spot it left and the one it jumped to.
struct Jumper {
  Schema schema;
  TypeId type;
  Field<float> x;
  Field<std::int32_t> teleports;
  Jumper() {
    SchemaBuilder b;
    auto t = b.entity_type("jumper");
    type = t.id();
    x = t.add_float("x", -100.0F, 100.0F, 0.01F);
    teleports = t.add_int("teleports", 0, 3, Interpolation::kTeleportCounter);
    schema = b.build();
  }
};

TEST(Interpolation, DoesNotBlendAcrossATeleport) {
  Jumper j;
  World server{j.schema};
  World client{j.schema};
  Link link{j.schema};
  Interpolator interp{j.schema, InterpolationConfig{4.0}};
  const EntityId a = server.spawn(j.type);
  auto send = [&](std::uint32_t tick) {
    WorldState s;
    capture(server, Tick(tick), s);
    ASSERT_TRUE(link.send(s, false, 0).has_value());
  };
  server.set(a, j.x, 50.0F);
  send(10);
  server.set(a, j.x, 54.0F);
  send(12);
  server.set(a, j.x, 0.0F);  // respawned at the centre
  server.set(a, j.teleports, 1);
  send(14);
  server.set(a, j.x, 2.0F);
  send(16);

  EXPECT_EQ(interp.sample(link.receiver, 11.0, client), SampleMode::kInterpolated);
  EXPECT_NEAR(client.get(a, j.x), 52.0F, 0.01);  // blended within one life
  EXPECT_EQ(interp.sample(link.receiver, 13.5, client), SampleMode::kInterpolated);
  EXPECT_NEAR(client.get(a, j.x), 54.0F, 0.01);  // still where it was, not sliding to 0
  EXPECT_EQ(client.get(a, j.teleports), 0);
  EXPECT_EQ(interp.sample(link.receiver, 14.0, client), SampleMode::kInterpolated);
  EXPECT_NEAR(client.get(a, j.x), 0.0F, 0.01);
  EXPECT_EQ(interp.sample(link.receiver, 15.0, client), SampleMode::kInterpolated);
  EXPECT_NEAR(client.get(a, j.x), 1.0F, 0.01);  // blended again after the jump
}

TEST(Interpolation, DoesNotExtrapolateAcrossATeleport) {
  Jumper j;
  World server{j.schema};
  World client{j.schema};
  Link link{j.schema};
  Interpolator interp{j.schema, InterpolationConfig{4.0}};
  const EntityId a = server.spawn(j.type);
  WorldState s;
  server.set(a, j.x, 50.0F);
  capture(server, Tick(10), s);
  ASSERT_TRUE(link.send(s, false, 0).has_value());
  server.set(a, j.x, 0.0F);
  server.set(a, j.teleports, 3);
  capture(server, Tick(12), s);
  ASSERT_TRUE(link.send(s, false, 0).has_value());
  EXPECT_EQ(interp.sample(link.receiver, 13.0, client), SampleMode::kExtrapolated);
  EXPECT_NEAR(client.get(a, j.x), 0.0F, 0.01);  // not on past 0 at -25 units a tick
}

TEST(Interpolation, OnlyIntegersCountTeleports) {
  SchemaBuilder b;
  auto t = b.entity_type("jumper");
  EXPECT_THROW((void)t.add_float("x", 0.0F, 1.0F, 0.01F, Interpolation::kTeleportCounter), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::snapshot
