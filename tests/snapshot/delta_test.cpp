// Delta encoding against acknowledged baselines: every baseline age the
// history allows, spawns and despawns, id reuse, relevancy, and what the
// prediction steps buy.

#include "tickwire/snapshot/delta.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "snapshot_fixture.h"
#include "tickwire/snapshot/snapshot_codec.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;
using testing::Link;

struct Scene {
  KitchenSink k;
  World world{k.schema};
  std::mt19937_64 rng;
  std::vector<EntityId> things;
  std::vector<EntityId> pebbles;

  explicit Scene(std::uint64_t seed, int count = 40) : rng(seed) {
    for (int i = 0; i < count; ++i) {
      things.push_back(world.spawn(k.thing));
      testing::randomize_thing(k, world, things.back(), rng);
      pebbles.push_back(world.spawn(k.pebble));
      testing::randomize_pebble(k, world, pebbles.back(), rng);
    }
  }
  // Moves everything a little, as a tick of a game would.
  void step() {
    for (EntityId id : things) {
      Vec3 p = world.get(id, k.position);
      p.x += 0.37F;
      p.z -= 0.11F;
      world.set(id, k.position, p);
      world.set(id, k.yaw, world.get(id, k.yaw) + 0.05F);
      if (rng() % 10 == 0) world.set(id, k.health, static_cast<std::int32_t>(rng() % 201) - 100);
    }
    for (EntityId id : pebbles) {
      Vec3 f = world.get(id, k.falling);
      f.y -= 0.02F * static_cast<float>(tick_ % 40);  // accelerating
      world.set(id, k.falling, f);
    }
    ++tick_;
  }
  WorldState capture_at(std::uint32_t tick) {
    WorldState s;
    capture(world, Tick(tick), s);
    return s;
  }
  std::uint32_t tick_ = 0;
};

TEST(Delta, FullSnapshotRoundTrips) {
  Scene scene(testing::test_seed("Delta.FullSnapshotRoundTrips"), 20);
  Link link(scene.k.schema);
  const WorldState s = scene.capture_at(1);
  const auto got = link.send(s);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(testing::same_entities(scene.k.schema, s, *link.receiver.state(*got)));
  EXPECT_EQ(link.sender.stats().full_snapshots, 1U);
}

// States keep a generation modulo 65,536 (protocol version 4): the id's
// respawn from 65,535 to 65,536 is still a new entity (the client sees it
// spawn, not change), and both decode exactly.
TEST(Delta, GenerationsWrapAtSixteenBitsAndARespawnStaysASpawn) {
  Scene scene(testing::test_seed("Delta.GenerationsWrapAtSixteenBitsAndARespawnStaysASpawn"), 5);
  Link link(scene.k.schema);
  const EntityId id = scene.pebbles[0];
  while (scene.world.generation(id) < 0xFFFFU) {
    ASSERT_TRUE(scene.world.despawn(id));
    ASSERT_TRUE(scene.world.spawn_at(id, scene.k.pebble));
  }
  const WorldState before = scene.capture_at(1);
  ASSERT_EQ(before.find(id)->generation, 0xFFFFU);
  ASSERT_TRUE(link.send(before, false, 0).has_value());
  ASSERT_TRUE(scene.world.despawn(id));
  ASSERT_TRUE(scene.world.spawn_at(id, scene.k.pebble));
  ASSERT_EQ(scene.world.generation(id), 0x1'0000U);
  scene.step();
  const WorldState after = scene.capture_at(2);
  EXPECT_EQ(after.find(id)->generation, 0U);
  const std::uint64_t spawns = link.sender.stats().spawns_sent;
  const auto got = link.send(after, false, 0);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(link.sender.stats().full_snapshots, 1U);  // the second is a delta
  EXPECT_EQ(link.sender.stats().spawns_sent, spawns + 1);
  EXPECT_TRUE(testing::same_entities(scene.k.schema, after, *link.receiver.state(*got)));
  EXPECT_EQ(link.receiver.state(*got)->find(id)->generation, 0U);
}

TEST(Delta, AgainstEveryBaselineAgeInTheHistory) {
  const auto seed = testing::test_seed("Delta.AgainstEveryBaselineAgeInTheHistory");
  constexpr std::uint32_t kHistory = 32;
  SenderConfig sc;
  sc.history_ticks = kHistory;
  sc.max_payload = 64 * 1024;
  ReceiverConfig rc;
  rc.history_ticks = kHistory;
  rc.max_payload = 64 * 1024;
  for (std::uint32_t age = 1; age < kHistory; ++age) {
    Scene scene(seed + age, 10);
    Link link(scene.k.schema, sc, rc);
    // The client acknowledges only tick 1; every later snapshot is a delta
    // against it, up to the oldest age the history holds.
    const WorldState first = scene.capture_at(1);
    ASSERT_TRUE(link.send(first, false, 100).has_value());
    link.sender.acknowledge(Tick(1));
    link.pending_acks.clear();
    for (std::uint32_t t = 2; t <= 1 + age; ++t) scene.step();
    const WorldState later = scene.capture_at(1 + age);
    const auto got = link.send(later, false, 100);
    ASSERT_TRUE(got.has_value()) << "age " << age;
    EXPECT_EQ(link.sender.stats().full_snapshots, 1U) << "age " << age;
    EXPECT_TRUE(testing::same_entities(scene.k.schema, later, *link.receiver.state(*got))) << "age " << age;
  }
  // At the history's length the baseline has aged out: a full snapshot.
  Scene scene(seed, 10);
  Link link(scene.k.schema, sc, rc);
  ASSERT_TRUE(link.send(scene.capture_at(1), false, 100).has_value());
  link.sender.acknowledge(Tick(1));
  const auto got = link.send(scene.capture_at(1 + kHistory), false, 100);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(link.sender.stats().full_snapshots, 2U);
}

TEST(Delta, WithReferencesAndAckDelaysStaysExact) {
  Scene scene(testing::test_seed("Delta.WithReferencesAndAckDelaysStaysExact"));
  SenderConfig sc;
  sc.max_payload = 64 * 1024;
  ReceiverConfig rc;
  rc.max_payload = 64 * 1024;
  Link link(scene.k.schema, sc, rc);
  for (std::uint32_t t = 1; t <= 300; ++t) {
    scene.step();
    const WorldState s = scene.capture_at(t);
    const auto got = link.send(s, false, 1 + t % 5);
    ASSERT_TRUE(got.has_value());
    ASSERT_TRUE(testing::same_entities(scene.k.schema, s, *link.receiver.state(*got))) << "tick " << t;
  }
}

// Only the newest acknowledged state can be a baseline again, so only the
// states from it on keep their coding models (the older ones are still
// references, by their codes); the snapshots stay exact.
TEST(Delta, StatesOlderThanTheNewestAckDropTheirModels) {
  Scene scene(testing::test_seed("Delta.StatesOlderThanTheNewestAckDropTheirModels"));
  SenderConfig sc;
  sc.max_payload = 64 * 1024;
  ReceiverConfig rc;
  rc.max_payload = 64 * 1024;
  Link link(scene.k.schema, sc, rc);
  for (std::uint32_t t = 1; t <= 120; ++t) {
    scene.step();
    const WorldState s = scene.capture_at(t);
    const auto got = link.send(s, false, 3);
    ASSERT_TRUE(got.has_value());
    ASSERT_TRUE(testing::same_entities(scene.k.schema, s, *link.receiver.state(*got))) << "tick " << t;
  }
  const std::optional<Tick> newest = link.sender.newest_acked();
  ASSERT_TRUE(newest.has_value());
  ASSERT_NE(link.sender.view(*newest), nullptr);
  EXPECT_NE(link.sender.view(*newest)->models(), nullptr);
  for (std::uint32_t t = newest->value() - 30; t < newest->value(); ++t) {
    const WorldState* old = link.sender.view(Tick(t));
    ASSERT_NE(old, nullptr) << "tick " << t;
    EXPECT_EQ(old->models(), nullptr) << "tick " << t;
  }
  // The ones in flight keep theirs: the client may yet acknowledge them.
  for (std::uint32_t t = newest->value() + 1; t <= 120; ++t) {
    ASSERT_NE(link.sender.view(Tick(t)), nullptr) << "tick " << t;
    EXPECT_NE(link.sender.view(Tick(t))->models(), nullptr) << "tick " << t;
  }
}

TEST(Delta, IdleWorldCostsOnlyTheHeader) {
  Scene scene(testing::test_seed("Delta.IdleWorldCostsOnlyTheHeader"), 100);
  SenderConfig sc;
  sc.max_payload = 64 * 1024;
  ReceiverConfig rc;
  rc.max_payload = 64 * 1024;
  Link link(scene.k.schema, sc, rc);
  for (std::uint32_t t = 1; t <= 20; ++t) ASSERT_TRUE(link.send(scene.capture_at(t), false, 1).has_value());
  EXPECT_LE(link.sent.back().size(), 5U);
}

TEST(Delta, SpawnsDespawnsAndReusedIds) {
  const KitchenSink k;
  World w(k.schema, WorldConfig{8});
  std::vector<EntityId> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(w.spawn(k.pebble));
  Link link(k.schema);
  std::uint32_t t = 1;
  auto send = [&] {
    WorldState s;
    capture(w, Tick(t++), s);
    const auto got = link.send(s, false, 0);
    ASSERT_TRUE(got.has_value());
    EXPECT_TRUE(testing::same_entities(k.schema, s, *link.receiver.state(*got)));
  };
  send();
  send();
  w.despawn(ids[3]);
  send();
  // The world is full, so the id comes straight back with a new generation
  // (and another type): the client must see a different entity.
  w.despawn(ids[5]);
  const EntityId thing = w.spawn(k.thing);
  ASSERT_EQ(thing, ids[3]);
  send();
  w.despawn(thing);
  const EntityId pebble = w.spawn(k.pebble);
  ASSERT_EQ(pebble, ids[5]);
  send();
  EXPECT_GE(link.sender.stats().removals_sent, 3U);
}

TEST(Delta, RelevancyDecidesWhatAClientSees) {
  Scene scene(testing::test_seed("Delta.RelevancyDecidesWhatAClientSees"), 10);
  Link link(scene.k.schema);
  bool show_pebbles = false;
  const TypeId pebble = scene.k.pebble;
  link.sender.set_relevancy([&](EntityId, TypeId type) { return show_pebbles || type != pebble; });
  auto got = link.send(scene.capture_at(1), false, 0);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(link.receiver.state(*got)->size(), 10U);
  show_pebbles = true;
  got = link.send(scene.capture_at(2), false, 0);
  EXPECT_EQ(link.receiver.state(*got)->size(), 20U);
  show_pebbles = false;
  got = link.send(scene.capture_at(3), false, 0);
  EXPECT_EQ(link.receiver.state(*got)->size(), 10U);
}

// A listed relevancy classifies exactly as the predicate over the same ids,
// including listed ids the world no longer holds and entities that left.
void expect_same_items(const std::vector<DeltaItem>& got, const std::vector<DeltaItem>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].base, expected[i].base) << i;
    EXPECT_EQ(got[i].current, expected[i].current) << i;
    EXPECT_EQ(got[i].op, expected[i].op) << i;
  }
}

TEST(Delta, ListedRelevancyMatchesItsPredicate) {
  Scene scene(testing::test_seed("Delta.ListedRelevancyMatchesItsPredicate"), 30);
  const WorldState before = scene.capture_at(1);
  scene.step();
  scene.world.despawn(scene.things[3]);
  scene.world.despawn(scene.pebbles[7]);
  scene.world.spawn(scene.k.thing);
  const WorldState after = scene.capture_at(2);
  std::vector<EntityId> listed;
  for (std::uint32_t id = 0; id < scene.world.id_limit() + 5; id += 3) listed.push_back(EntityId{id});
  const Relevancy predicate = [&](EntityId id, TypeId) { return std::binary_search(listed.begin(), listed.end(), id); };
  for (const WorldState* baseline : {static_cast<const WorldState*>(nullptr), &before}) {
    std::vector<DeltaItem> expected;
    std::vector<DeltaItem> got;
    diff_states(scene.k.schema, after, baseline, predicate, expected);
    diff_states(scene.k.schema, after, baseline, Relevancy::of_ids(listed), got);
    expect_same_items(got, expected);
  }
}

// A capture looks listed ids up in its id table; a state without one
// (a copy that was changed, or sparse ids) searches. Both give the same.
TEST(Delta, ListedDiffIsTheSameWithoutTheIdTable) {
  Scene scene(testing::test_seed("Delta.ListedDiffIsTheSameWithoutTheIdTable"), 30);
  const WorldState before = scene.capture_at(1);
  scene.step();
  scene.world.despawn(scene.things[5]);
  scene.world.spawn(scene.k.pebble);
  const WorldState after = scene.capture_at(2);
  ASSERT_FALSE(after.id_index().empty());
  WorldState searched = after;
  searched.sort_by_id();  // already sorted; any change drops the table
  ASSERT_TRUE(searched.id_index().empty());
  std::vector<EntityId> listed;
  for (std::uint32_t id = 0; id < scene.world.id_limit() + 5; id += 2) listed.push_back(EntityId{id});
  std::vector<DeltaItem> indexed;
  std::vector<DeltaItem> plain;
  diff_states(scene.k.schema, after, &before, Relevancy::of_ids(listed), indexed);
  diff_states(scene.k.schema, searched, &before, Relevancy::of_ids(listed), plain);
  expect_same_items(indexed, plain);
}

TEST(Delta, TheIdTableMapsEveryIdAndOnlyDenseOnes) {
  Scene scene(testing::test_seed("Delta.TheIdTableMapsEveryIdAndOnlyDenseOnes"), 10);
  const WorldState s = scene.capture_at(1);
  const auto index = s.id_index();
  ASSERT_FALSE(index.empty());
  std::size_t mapped = 0;
  for (std::uint32_t id = 0; id < index.size(); ++id) {
    if (index[id] == WorldState::kNoIndex) {
      EXPECT_EQ(s.find(EntityId{id}), nullptr) << id;
      continue;
    }
    ++mapped;
    EXPECT_EQ(s.entities()[index[id]].id, EntityId{id});
  }
  EXPECT_EQ(mapped, s.size());
  // Ids far apart would make a table mostly empty: none is built.
  WorldState sparse;
  sparse.append(EntityState{EntityId{1}, scene.k.pebble, 0, Tick(1), 0}, 0);
  sparse.append(EntityState{EntityId{1'000'000}, scene.k.pebble, 0, Tick(1), 0}, 0);
  sparse.build_id_index();
  EXPECT_TRUE(sparse.id_index().empty());
  // Nor for ids out of order (a state built by hand, not yet sorted).
  WorldState unsorted;
  unsorted.append(EntityState{EntityId{9}, scene.k.pebble, 0, Tick(1), 0}, 0);
  unsorted.append(EntityState{EntityId{3}, scene.k.pebble, 0, Tick(1), 0}, 0);
  unsorted.build_id_index();
  EXPECT_TRUE(unsorted.id_index().empty());
  // Building a state drops a table it had.
  WorldState changed = s;
  changed.clear();
  EXPECT_TRUE(changed.id_index().empty());
}

// Encodes the same motion with and without the prediction steps.
std::size_t bytes_for(bool motion, bool adaptive, std::uint64_t seed) {
  Scene scene(seed, 60);
  SenderConfig sc;
  sc.max_payload = 64 * 1024;
  sc.motion_prediction = motion;
  sc.adaptive_coding = adaptive;
  ReceiverConfig rc;
  rc.max_payload = 64 * 1024;
  Link link(scene.k.schema, sc, rc);
  std::size_t total = 0;
  for (std::uint32_t t = 1; t <= 120; ++t) {
    scene.step();
    EXPECT_TRUE(link.send(scene.capture_at(t), false, 3).has_value());
    if (t > 20) total += link.sent.back().size();
  }
  return total;
}

TEST(Delta, EachCompressionStepHelpsOnSteadyMotion) {
  const auto seed = testing::test_seed("Delta.EachCompressionStepHelpsOnSteadyMotion");
  const std::size_t plain = bytes_for(false, false, seed);
  const std::size_t predicted = bytes_for(true, false, seed);
  const std::size_t adaptive = bytes_for(true, true, seed);
  EXPECT_LT(predicted, plain);
  EXPECT_LT(adaptive, predicted);
}

TEST(Delta, DiffClassifiesEveryEntity) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId a = w.spawn(k.pebble);
  const EntityId b = w.spawn(k.pebble);
  WorldState before;
  capture(w, Tick(1), before);
  w.set(a, k.pebble_position, Vec3{1, 2, 3});
  w.despawn(b);
  const EntityId c = w.spawn(k.pebble);
  WorldState after;
  capture(w, Tick(2), after);
  std::vector<DeltaItem> items;
  diff_states(k.schema, after, &before, {}, items);
  ASSERT_EQ(items.size(), 3U);
  EXPECT_EQ(items[0].op, EntityOp::kChanged);
  EXPECT_EQ(items[1].op, EntityOp::kRemoved);
  EXPECT_EQ(items[2].op, EntityOp::kSpawned);
  EXPECT_EQ(after.entities()[items[2].current].id, c);
}

// A view is sized by the entities it keeps, not by the items: against a
// baseline most of whose entities left the client's relevancy, the removals
// are most of the items and keep nothing.
TEST(Delta, AViewHoldsRoomForWhatItKeepsNotForEveryItem) {
  Scene scene(7);
  const WorldState before = scene.capture_at(1);
  scene.step();
  const WorldState after = scene.capture_at(2);
  std::vector<EntityId> listed(scene.things.begin(), scene.things.begin() + 5);
  std::sort(listed.begin(), listed.end());
  std::vector<DeltaItem> items;
  diff_states(scene.k.schema, after, &before, Relevancy::of_ids(listed), items);
  ASSERT_EQ(items.size(), before.size());  // five changed, the rest removed

  SnapshotEncoder encoder(scene.k.schema);
  EncodeInput in;
  in.current = &after;
  in.baseline = &before;
  std::vector<std::uint8_t> bytes;
  WorldState view;
  encoder.encode(in, items, bytes, view);
  EXPECT_EQ(view.size(), listed.size());
  EXPECT_EQ(view.capacity(), WorldState::kReserveStep);
  for (std::size_t i = 0; i < view.size(); ++i) EXPECT_EQ(view.entities()[i].id, listed[i]);
}

}  // namespace
}  // namespace tickwire::snapshot
