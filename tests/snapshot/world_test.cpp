#include "tickwire/snapshot/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "snapshot_fixture.h"
#include "test_seed.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;

TEST(World, SpawnsWithDefaultsAndDespawns) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId a = w.spawn(k.thing);
  const EntityId b = w.spawn(k.pebble);
  EXPECT_NE(a, b);
  EXPECT_EQ(w.size(), 2U);
  EXPECT_EQ(w.type_of(a), k.thing);
  EXPECT_EQ(w.get(a, k.rotation), (Quat{0, 0, 0, 1}));
  EXPECT_EQ(w.get(a, k.health), 0);
  EXPECT_EQ(w.get(a, k.speed), 0.0F);
  EXPECT_EQ(w.entities(k.thing).size(), 1U);
  EXPECT_TRUE(w.despawn(a));
  EXPECT_FALSE(w.despawn(a));
  EXPECT_FALSE(w.contains(a));
  EXPECT_FALSE(w.type_of(a).has_value());
  EXPECT_EQ(w.size(), 1U);
  EXPECT_THROW(w.spawn(k.input), std::invalid_argument);  // a record type
  EXPECT_THROW(w.spawn(TypeId{42}), std::invalid_argument);
}

TEST(World, ReusesIdsLateWithANewGeneration) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId first = w.spawn(k.pebble);
  EXPECT_EQ(w.generation(first), 1U);
  w.despawn(first);
  // A freed id is not handed out again straight away.
  EXPECT_NE(w.spawn(k.pebble), first);
  World small(k.schema, WorldConfig{4});
  std::vector<EntityId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(small.spawn(k.pebble));
  EXPECT_THROW(small.spawn(k.pebble), std::length_error);
  small.despawn(ids[2]);
  const EntityId again = small.spawn(k.pebble);  // full: the freed id comes back
  EXPECT_EQ(again, ids[2]);
  EXPECT_EQ(small.generation(again), 2U);
}

// A client mirrors the server's ids with spawn_at; churning entities must
// not grow the free list without bound.
TEST(World, MirroredChurnKeepsTheFreeListBounded) {
  SchemaBuilder b;
  TypeBuilder t = b.entity_type("thing");
  t.add_int("x", 0, 10);
  World w(b.build());
  for (std::uint32_t i = 0; i < 100'000; ++i) {
    const EntityId id{i % 16};
    ASSERT_TRUE(w.spawn_at(id, t.id()));
    ASSERT_TRUE(w.despawn(id));
  }
  EXPECT_LE(w.free_id_count(), 16u);
  EXPECT_LE(w.free_id_count(), w.id_limit());
}

TEST(World, SpawnAtMirrorsChosenIds) {
  const KitchenSink k;
  World w(k.schema, WorldConfig{100});
  EXPECT_TRUE(w.spawn_at(EntityId{7}, k.thing));
  EXPECT_FALSE(w.spawn_at(EntityId{7}, k.thing));
  EXPECT_FALSE(w.spawn_at(EntityId{100}, k.thing));
  // spawn() steps around ids taken by spawn_at.
  for (int i = 0; i < 10; ++i) EXPECT_NE(w.spawn(k.pebble), EntityId{7});
}

TEST(World, TypedAccessorsRejectMisuse) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId pebble = w.spawn(k.pebble);
  EXPECT_THROW(w.get(pebble, k.health), std::invalid_argument);
  EXPECT_THROW(w.set(pebble, k.health, 3), std::invalid_argument);
  EXPECT_THROW(w.get(EntityId{999}, k.health), std::out_of_range);
  EXPECT_THROW(w.get(pebble, Field<float>{}), std::invalid_argument);
  EXPECT_FALSE(w.try_get(pebble, k.health).has_value());
  EXPECT_TRUE(w.try_get(pebble, k.pebble_position).has_value());
  EXPECT_TRUE(w.slots(EntityId{999}).empty());
}

TEST(World, IteratesInIdOrderAndCopiesAsAValue) {
  const KitchenSink k;
  World w(k.schema);
  std::vector<EntityId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(w.spawn(i % 2 == 0 ? k.thing : k.pebble));
  w.despawn(ids[1]);
  std::vector<EntityId> seen;
  w.for_each([&](EntityId id) { seen.push_back(id); });
  EXPECT_EQ(seen, (std::vector<EntityId>{ids[0], ids[2], ids[3], ids[4]}));
  World copy = w;
  w.set(ids[0], k.health, 42);
  EXPECT_EQ(copy.get(ids[0], k.health), 0);
  EXPECT_EQ(w.get(ids[0], k.health), 42);
}

TEST(World, ListsIdsInOrderWhateverOrderTheyCameIn) {
  const KitchenSink k;
  World w(k.schema, WorldConfig{80000});
  ASSERT_TRUE(w.spawn_at(EntityId{70000}, k.thing));
  ASSERT_TRUE(w.spawn_at(EntityId{5}, k.pebble));
  const EntityId first = w.spawn(k.thing);
  ASSERT_TRUE(w.spawn_at(EntityId{9}, k.thing));
  EXPECT_EQ(std::vector<EntityId>(w.ids().begin(), w.ids().end()),
            (std::vector<EntityId>{first, EntityId{5}, EntityId{9}, EntityId{70000}}));
  w.despawn(EntityId{9});
  w.clear();
  EXPECT_TRUE(w.ids().empty());
  EXPECT_EQ(w.size(), 0U);
}

TEST(World, CopiesSelectedEntitiesForRollback) {
  const KitchenSink k;
  World server(k.schema);
  World client(k.schema);
  const EntityId a = server.spawn(k.thing);
  server.set(a, k.health, 17);
  client.copy_entity(server, a);  // absent here: spawned
  EXPECT_EQ(client.get(a, k.health), 17);
  server.despawn(a);
  ASSERT_TRUE(server.spawn_at(a, k.pebble));
  client.copy_entity(server, a);  // another type there: respawned
  EXPECT_EQ(client.type_of(a), k.pebble);
  server.despawn(a);
  client.copy_entity(server, a);  // gone there: despawned
  EXPECT_FALSE(client.contains(a));
}

TEST(World, StepDifferenceCountsQuantizationSteps) {
  const KitchenSink k;
  World a(k.schema);
  const EntityId id = a.spawn(k.thing);
  World b = a;
  EXPECT_EQ(a.step_difference(b, id), 0U);
  b.set(id, k.speed, 0.03F);
  EXPECT_EQ(a.step_difference(b, id), 3U);
  b = a;
  // Angles compare the short way round: 4095 and 1 are two steps apart.
  a.set(id, k.yaw, -2.0F * std::numbers::pi_v<float> / 4096.0F);
  b.set(id, k.yaw, 2.0F * std::numbers::pi_v<float> / 4096.0F);
  EXPECT_EQ(a.step_difference(b, id), 2U);
  World other(k.schema);
  EXPECT_FALSE(a.step_difference(other, id).has_value());
}

}  // namespace
}  // namespace tickwire::snapshot

namespace tickwire::snapshot {
namespace {

// A state's kept entities in id order, then a few appended in id order (a
// snapshot's spawns): the merge leaves what a sort would, codes attached.
TEST(WorldStateOrder, MergingAppendedEntitiesLeavesWhatASortWould) {
  const std::uint64_t seed = testing::test_seed("WorldStateOrder.Merging");
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::uint32_t> ids(40);
    std::iota(ids.begin(), ids.end(), 0U);
    std::shuffle(ids.begin(), ids.end(), rng);
    const std::size_t total = 1 + rng() % ids.size();
    // Up to 20 appended: beyond 16 the merge sorts instead.
    const std::size_t appended = std::min<std::size_t>(total, rng() % 21);
    std::vector<std::uint32_t> kept(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(total - appended));
    std::vector<std::uint32_t> added(ids.begin() + static_cast<std::ptrdiff_t>(total - appended),
                                     ids.begin() + static_cast<std::ptrdiff_t>(total));
    std::sort(kept.begin(), kept.end());
    std::sort(added.begin(), added.end());
    WorldState merged;
    for (const auto& run : {kept, added}) {
      for (std::uint32_t id : run) *merged.append(EntityState{EntityId{id}, TypeId{0}, 1, Tick(id), 0}, 1) = id * 7;
    }
    WorldState sorted = merged;
    merged.merge_appended(kept.size());
    sorted.sort_by_id();
    ASSERT_EQ(merged.size(), total);
    for (std::size_t i = 0; i < total; ++i) {
      const EntityState& e = merged.entities()[i];
      ASSERT_EQ(e.id, sorted.entities()[i].id) << "round " << round << ", seed " << seed;
      ASSERT_EQ(merged.codes(e, 1)[0], e.id.value * 7) << "round " << round << ", seed " << seed;
    }
  }
}

// States are reserved in steps, so that storage freed by one state fits
// the next of the same step rather than leaving a hole of its own size.
TEST(WorldStateStorage, ReservesInStepsAndNeverShrinks) {
  constexpr std::size_t kStep = WorldState::kReserveStep;
  WorldState state;
  state.reserve(1);
  EXPECT_EQ(state.capacity(), kStep);
  state.reserve(kStep);
  EXPECT_EQ(state.capacity(), kStep);
  state.reserve(kStep + 1);
  EXPECT_EQ(state.capacity(), 2 * kStep);
  for (std::size_t n : {std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{100}}) {
    WorldState fresh;
    fresh.reserve(n);
    EXPECT_GE(fresh.capacity(), n);
    EXPECT_LT(fresh.capacity(), n + kStep);
    EXPECT_EQ(fresh.capacity() % kStep, 0U) << n;
  }
  // Asking for less keeps what it has, and clearing keeps it too.
  state.reserve(3);
  state.clear();
  EXPECT_EQ(state.capacity(), 2 * kStep);
}

}  // namespace
}  // namespace tickwire::snapshot
