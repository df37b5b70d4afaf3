// The ring of world states by tick: slots found only by their own tick,
// state objects reused across release and claim, copies that own their
// states.
#include "tickwire/snapshot/state_ring.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tickwire::snapshot
