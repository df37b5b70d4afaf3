#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "tickwire/core/sequence_buffer.h"
#include "tickwire/core/tick_buffer.h"

namespace tickwire {
namespace {

Sequence seq(int value) { return Sequence(static_cast<std::uint16_t>(value)); }

TEST(TickBuffer, RejectsZeroCapacity) { EXPECT_THROW(TickBuffer<int>(0), std::invalid_argument); }

TEST(TickBuffer, InsertFindErase) {
  TickBuffer<std::string> buffer(8);
  EXPECT_EQ(buffer.capacity(), 8U);
  EXPECT_EQ(buffer.newest(), std::nullopt);
  EXPECT_EQ(buffer.find(Tick(3)), nullptr);

  buffer.insert(Tick(3), "three") += "!";
  ASSERT_NE(buffer.find(Tick(3)), nullptr);
  EXPECT_EQ(*buffer.find(Tick(3)), "three!");
  EXPECT_TRUE(buffer.contains(Tick(3)));
  EXPECT_FALSE(buffer.contains(Tick(4)));
  EXPECT_EQ(buffer.newest(), Tick(3));

  buffer.erase(Tick(4));  // absent: no effect
  buffer.erase(Tick(3));
  EXPECT_FALSE(buffer.contains(Tick(3)));
  EXPECT_EQ(buffer.newest(), std::nullopt);
}

TEST(TickBuffer, StaleSlotNeverMasqueradesAsCurrentTick) {
  TickBuffer<int> buffer(4);
  buffer.insert(Tick(1), 10);
  EXPECT_EQ(buffer.find(Tick(5)), nullptr);  // same slot, different tick
  buffer.insert(Tick(5), 50);
  EXPECT_EQ(buffer.find(Tick(1)), nullptr);
  ASSERT_NE(buffer.find(Tick(5)), nullptr);
  EXPECT_EQ(*buffer.find(Tick(5)), 50);
  buffer.erase(Tick(1));  // the slot now belongs to 5; erasing 1 must not touch it
  EXPECT_TRUE(buffer.contains(Tick(5)));
}

TEST(TickBuffer, NewestTracksPresentTicks) {
  TickBuffer<int> buffer(8);
  buffer.insert(Tick(3), 3);
  buffer.insert(Tick(7), 7);
  buffer.insert(Tick(5), 5);
  EXPECT_EQ(buffer.newest(), Tick(7));
  buffer.erase(Tick(7));
  EXPECT_EQ(buffer.newest(), Tick(5));

  // An older tick evicting the newest from its slot.
  TickBuffer<int> small(4);
  small.insert(Tick(6), 6);
  small.insert(Tick(8), 8);
  small.insert(Tick(4), 4);
  EXPECT_EQ(small.newest(), Tick(6));
  EXPECT_FALSE(small.contains(Tick(8)));

  small.clear();
  EXPECT_EQ(small.newest(), std::nullopt);
  EXPECT_FALSE(small.contains(Tick(6)));
}

TEST(TickBuffer, RollsForwardOverManyTicks) {
  TickBuffer<std::uint32_t> buffer(16);
  for (std::uint32_t t = 0; t < 1000; ++t) {
    buffer.insert(Tick(t), t * 2);
    EXPECT_EQ(buffer.newest(), Tick(t));
  }
  for (std::uint32_t t = 984; t < 1000; ++t) {
    ASSERT_NE(buffer.find(Tick(t)), nullptr);
    EXPECT_EQ(*buffer.find(Tick(t)), t * 2);
  }
  EXPECT_FALSE(buffer.contains(Tick(983)));
  const auto& view = buffer;
  EXPECT_NE(view.find(Tick(999)), nullptr);
}

TEST(TickBuffer, HoldsMoveOnlyValuesAndExtremeTicks) {
  TickBuffer<std::unique_ptr<int>> buffer(3);
  const Tick last(std::numeric_limits<Tick::Rep>::max());
  buffer.insert(last, std::make_unique<int>(7));
  ASSERT_NE(buffer.find(last), nullptr);
  EXPECT_EQ(**buffer.find(last), 7);
  EXPECT_EQ(buffer.newest(), last);
}

TEST(SequenceBuffer, CapacityMustBeAPowerOfTwoUpTo32768) {
  EXPECT_THROW(SequenceBuffer<int>(0), std::invalid_argument);
  EXPECT_THROW(SequenceBuffer<int>(3), std::invalid_argument);
  EXPECT_THROW(SequenceBuffer<int>(65536), std::invalid_argument);
  EXPECT_NO_THROW(SequenceBuffer<int>(1));
  EXPECT_NO_THROW(SequenceBuffer<int>(32768));
}

TEST(SequenceBuffer, InsertFindErase) {
  SequenceBuffer<int> buffer(16);
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.find(Sequence(0)), nullptr);  // an empty slot never matches
  int* slot = buffer.insert(Sequence(40000));    // any first sequence is accepted
  ASSERT_NE(slot, nullptr);
  *slot = 4;
  EXPECT_FALSE(buffer.empty());
  EXPECT_EQ(buffer.newest(), Sequence(40000));
  EXPECT_TRUE(buffer.exists(Sequence(40000)));
  EXPECT_EQ(*buffer.find(Sequence(40000)), 4);
  EXPECT_FALSE(buffer.exists(Sequence(40016)));

  // Re-inserting hands back a fresh value.
  EXPECT_EQ(*buffer.insert(Sequence(40000)), 0);
  buffer.erase(Sequence(40000));
  EXPECT_FALSE(buffer.exists(Sequence(40000)));
  EXPECT_EQ(buffer.newest(), Sequence(40000));  // the window does not move back

  buffer.reset();
  EXPECT_TRUE(buffer.empty());
}

TEST(SequenceBuffer, RejectsSequencesBehindTheWindow) {
  SequenceBuffer<int> buffer(8);
  ASSERT_NE(buffer.insert(Sequence(100)), nullptr);
  EXPECT_EQ(buffer.insert(Sequence(92)), nullptr);  // newest - capacity
  EXPECT_NE(buffer.insert(Sequence(93)), nullptr);  // oldest still in the window
  EXPECT_EQ(buffer.newest(), Sequence(100));
  EXPECT_EQ(buffer.insert(Sequence(100) - 30000), nullptr);
}

TEST(SequenceBuffer, AdvancingClearsPassedEntries) {
  SequenceBuffer<int> buffer(8);
  for (int s = 0; s < 8; ++s) *buffer.insert(seq(s)) = s;
  ASSERT_NE(buffer.insert(Sequence(10)), nullptr);
  for (int s = 0; s < 3; ++s) EXPECT_FALSE(buffer.exists(seq(s))) << s;
  for (int s = 3; s < 8; ++s) EXPECT_EQ(*buffer.find(seq(s)), s);
  EXPECT_FALSE(buffer.exists(Sequence(8)));
  EXPECT_FALSE(buffer.exists(Sequence(9)));

  // A jump of more than the capacity clears everything.
  ASSERT_NE(buffer.insert(Sequence(1000)), nullptr);
  for (int s = 0; s <= 10; ++s) EXPECT_FALSE(buffer.exists(seq(s)));
  EXPECT_EQ(buffer.newest(), Sequence(1000));
}

TEST(SequenceBuffer, WrapsAround) {
  SequenceBuffer<int> buffer(16);
  for (int s : {65530, 65533, 65535, 0, 2}) ASSERT_NE(buffer.insert(seq(s)), nullptr) << s;
  EXPECT_EQ(buffer.newest(), Sequence(2));
  for (int s : {65530, 65533, 65535, 0, 2}) EXPECT_TRUE(buffer.exists(seq(s))) << s;
  EXPECT_FALSE(buffer.exists(Sequence(1)));
  ASSERT_NE(buffer.insert(Sequence(65525)), nullptr);  // 13 behind: inside the window
  EXPECT_EQ(buffer.insert(Sequence(65522)), nullptr);  // 16 behind: outside
  EXPECT_EQ(buffer.newest(), Sequence(2));

  // Walk the whole sequence space twice; only the window survives.
  SequenceBuffer<std::uint32_t> walker(32);
  for (std::uint32_t i = 0; i < 140000; ++i) {
    const Sequence s = seq(static_cast<int>(i % 65536));
    *walker.insert(s) = i;
    ASSERT_EQ(*walker.find(s), i);
  }
  EXPECT_TRUE(walker.exists(seq(140000 - 32)));
  EXPECT_FALSE(walker.exists(seq(140000 - 33)));
}

TEST(SequenceBuffer, AckBits) {
  SequenceBuffer<bool> received(256);
  for (int s : {68, 67, 97, 99, 100}) ASSERT_NE(received.insert(seq(s)), nullptr);
  const std::uint32_t bits = received.ack_bits(Sequence(100));
  EXPECT_EQ(bits, (1U << 0) | (1U << 2) | (1U << 31));  // 99, 97, 68; 67 is out of reach

  SequenceBuffer<bool> wrapped(64);
  for (int s : {65535, 65534, 0}) ASSERT_NE(wrapped.insert(seq(s)), nullptr);
  EXPECT_EQ(wrapped.ack_bits(Sequence(1)), 0b111U);
  EXPECT_EQ(SequenceBuffer<bool>(32).ack_bits(Sequence(5)), 0U);
}

}  // namespace
}  // namespace tickwire
