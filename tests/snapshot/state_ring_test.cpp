// The ring of world states by tick: slots found only by their own tick,
// state objects reused across release and claim, copies that own their
// states.
#include "tickwire/snapshot/state_ring.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <vector>

#include "snapshot_fixture.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot {
namespace {

void fill(WorldState& s, Tick tick, std::uint32_t id) {
  s.clear();
  s.set_tick(tick);
  *s.append(EntityState{EntityId{id}, TypeId{0}, 1, tick, 0}, 1) = id * 10;
}

TEST(StateRing, ASlotAnswersOnlyForItsOwnTick) {
  StateRing ring(4);
  fill(*ring.claim(Tick(5)).state, Tick(5), 1);
  ASSERT_NE(ring.find(Tick(5)), nullptr);
  EXPECT_EQ(ring.find(Tick(9)), nullptr);  // same slot, another tick
  fill(*ring.claim(Tick(9)).state, Tick(9), 2);
  EXPECT_EQ(ring.find(Tick(5)), nullptr);
  EXPECT_EQ(ring.find(Tick(9))->state->entities()[0].id, EntityId{2});
  EXPECT_EQ(ring.newest(), Tick(9));
}

TEST(StateRing, AReleasedSlotGivesBackItsContentsAndItsObjectServesTheNextClaim) {
  StateRing ring(8);
  StateRing::Slot& first = ring.claim(Tick(1));
  fill(*first.state, Tick(1), 7);
  const WorldState* object = first.state.get();
  first.acked = true;
  const WorldState held = ring.release(first);
  EXPECT_EQ(held.size(), 1U);  // what the slot held, for the caller's spare storage
  EXPECT_EQ(first.state, nullptr);
  EXPECT_FALSE(first.tick.has_value());
  EXPECT_FALSE(first.acked);
  EXPECT_EQ(ring.find(Tick(1)), nullptr);
  // The next claim of any empty slot takes the released object, emptied.
  StateRing::Slot& next = ring.claim(Tick(2));
  EXPECT_EQ(next.state.get(), object);
  EXPECT_TRUE(next.state->empty());
}

TEST(StateRing, CountsTheSlotsItHolds) {
  StateRing ring(8);
  EXPECT_EQ(ring.held(), 0U);
  ring.claim(Tick(1));
  ring.claim(Tick(2));
  EXPECT_EQ(ring.held(), 2U);
  ring.claim(Tick(9));  // overwrites tick 1's slot
  EXPECT_EQ(ring.held(), 2U);
  (void)ring.release(*ring.find(Tick(2)));
  EXPECT_EQ(ring.held(), 1U);
  const StateRing copy(ring);
  EXPECT_EQ(copy.held(), 1U);
  ring.clear();
  EXPECT_EQ(ring.held(), 0U);
}

TEST(StateRing, ACopyOwnsCopiesOfTheStates) {
  StateRing ring(4);
  fill(*ring.claim(Tick(3)).state, Tick(3), 3);
  ring.claim(Tick(3)).acked = true;
  StateRing copy = ring;
  ASSERT_NE(copy.find(Tick(3)), nullptr);
  EXPECT_NE(copy.find(Tick(3))->state.get(), ring.find(Tick(3))->state.get());
  EXPECT_TRUE(copy.find(Tick(3))->acked);
  fill(*ring.claim(Tick(3)).state, Tick(3), 4);                         // the original changes...
  EXPECT_EQ(copy.find(Tick(3))->state->entities()[0].id, EntityId{3});  // ...the copy does not
  EXPECT_EQ(copy.newest(), Tick(3));
}

// Clients diff against the newest capture: only it keeps an id table, and
// the table's storage moves on with each capture rather than being made
// again.
TEST(WorldHistory, OnlyTheNewestCaptureKeepsAnIdTable) {
  const testing::KitchenSink k;
  World world(k.schema);
  for (int i = 0; i < 20; ++i) world.spawn(k.pebble);
  WorldHistory history(8);
  history.capture(world, Tick(1));
  ASSERT_EQ(history.find(Tick(1))->id_index().size(), 20U);
  const std::uint32_t* storage = history.find(Tick(1))->id_index().data();
  history.capture(world, Tick(2));
  EXPECT_TRUE(history.find(Tick(1))->id_index().empty());
  ASSERT_EQ(history.find(Tick(2))->id_index().size(), 20U);
  EXPECT_EQ(history.find(Tick(2))->id_index().data(), storage);
  for (std::uint32_t t = 3; t <= 20; ++t) history.capture(world, Tick(t));  // round the ring twice
  EXPECT_EQ(history.find(Tick(20))->id_index().size(), 20U);
  EXPECT_TRUE(history.find(Tick(19))->id_index().empty());
}

// A burst of packets whose models stay held (acks held up by a stall)
// grows a coder's pool of model blocks; once they are let go, the pool
// shrinks back to a few spares instead of keeping its high-water mark.
TEST(BodyModels, APoolShrinksBackAfterABurstOfHeldStates) {
  const testing::KitchenSink k;
  BodyModels models;
  std::vector<std::shared_ptr<const ModelState>> held;
  std::shared_ptr<const ModelState> last;
  const auto packet = [&] {
    models.begin(k.schema, last != nullptr ? last.get() : nullptr);
    models.type(k.schema, k.thing);
    last = models.publish();
  };
  for (int i = 0; i < 10; ++i) packet();  // warm: a couple of blocks in turn
  const std::size_t warm = models.pooled_blocks();
  for (int i = 0; i < 60; ++i) {
    packet();
    held.push_back(last);
  }
  const std::size_t burst = models.pooled_blocks();
  EXPECT_GT(burst, warm + 100);  // a type block and a state per held packet
  held.clear();
  for (int i = 0; i < 128; ++i) packet();
  // Four spares a pool, beside the blocks the last packets still use.
  EXPECT_LE(models.pooled_blocks(), 2 * 4 + 8U) << "warm " << warm << ", burst " << burst;
}

// A type's block is shared by every state until the next packet that
// touches the type, so types touched at different rates hold their blocks
// for different times. With the states held in a ring (as a receiver
// holds them), a warm coder still finds a free block where it first looks.
TEST(BodyModels, TypesOfDifferentLifetimesStillRecycleAtTheFirstLook) {
  const testing::KitchenSink k;
  BodyModels models;
  std::deque<std::shared_ptr<const ModelState>> ring;
  std::uint64_t recycles = 0;
  std::uint64_t probes_before = 0;
  for (int i = 0; i < 1000; ++i) {
    models.begin(k.schema, ring.empty() ? nullptr : ring.back().get());
    models.type(k.schema, k.thing);                   // every packet
    if (i % 7 == 0) models.type(k.schema, k.pebble);  // now and then
    if (i % 23 == 0) models.type(k.schema, k.input);  // rarely
    ring.push_back(models.publish());
    if (ring.size() > 64) ring.pop_front();
    if (i == 499) probes_before = models.recycle_probes();
    if (i > 499) recycles += 2U + (i % 7 == 0 ? 1U : 0U) + (i % 23 == 0 ? 1U : 0U);  // the state and its types
  }
  const double per_recycle =
      static_cast<double>(models.recycle_probes() - probes_before) / static_cast<double>(recycles);
  EXPECT_LT(per_recycle, 1.1);
}

}  // namespace
}  // namespace tickwire::snapshot
