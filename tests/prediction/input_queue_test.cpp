#include "tickwire/prediction/input_queue.h"

#include <gtest/gtest.h>

#include "test_game.h"

namespace tickwire::prediction {
namespace {

using testing::TestSchema;

snapshot::Record stick(const TestSchema& s, float x) {
  snapshot::Record r(s.schema, s.input);
  r.set(s.move, snapshot::Vec2{x, 0});
  r.quantize();
  return r;
}

TEST(InputQueue, ConsumesTheInputOfEachTickInAnyArrivalOrder) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  EXPECT_EQ(q.receive(Tick(12), stick(s, 0.3F), Tick(10)), InputVerdict::kAccepted);
  EXPECT_EQ(q.receive(Tick(10), stick(s, 0.1F), Tick(10)), InputVerdict::kAccepted);
  EXPECT_EQ(q.receive(Tick(11), stick(s, 0.2F), Tick(10)), InputVerdict::kAccepted);
  EXPECT_EQ(q.pending(), 3U);
  for (std::uint32_t t = 10; t <= 12; ++t) {
    const ConsumedInput c = q.consume(Tick(t));
    EXPECT_FALSE(c.fallback);
    EXPECT_EQ(*c.input, stick(s, 0.1F * static_cast<float>(t - 9))) << t;
  }
  EXPECT_EQ(q.pending(), 0U);
  EXPECT_EQ(q.stats().accepted, 3U);
  EXPECT_EQ(q.stats().missing, 0U);
}

TEST(InputQueue, RedundantCopiesAreDuplicatesNotLate) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  q.receive(Tick(5), stick(s, 0.5F), Tick(3));
  EXPECT_EQ(q.receive(Tick(5), stick(s, 0.5F), Tick(3)), InputVerdict::kDuplicate);
  q.consume(Tick(3));
  q.consume(Tick(4));
  q.consume(Tick(5));
  // The copy in the next packet arrives after tick 5 ran: it is not late.
  EXPECT_EQ(q.receive(Tick(5), stick(s, 0.5F), Tick(6)), InputVerdict::kDuplicate);
  EXPECT_EQ(q.stats().duplicates, 2U);
  EXPECT_EQ(q.stats().late, 0U);
}

TEST(InputQueue, MissingInputRepeatsTheLastOne) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  q.receive(Tick(1), stick(s, 0.7F), Tick(1));
  EXPECT_FALSE(q.consume(Tick(1)).fallback);
  const ConsumedInput c = q.consume(Tick(2));
  EXPECT_TRUE(c.fallback);
  EXPECT_EQ(*c.input, stick(s, 0.7F));
  EXPECT_EQ(q.stats().missing, 1U);
}

TEST(InputQueue, MissingInputCanBeNeutral) {
  TestSchema s;
  InputQueue q(s.schema, s.input, {.missing = MissingInput::kNeutral});
  q.receive(Tick(1), stick(s, 0.7F), Tick(1));
  q.consume(Tick(1));
  const ConsumedInput c = q.consume(Tick(2));
  EXPECT_TRUE(c.fallback);
  EXPECT_EQ(*c.input, snapshot::Record(s.schema, s.input));
}

TEST(InputQueue, ATickIsConsumedOnce) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  q.consume(Tick(4));
  EXPECT_THROW(q.consume(Tick(4)), std::invalid_argument);
  EXPECT_THROW(q.consume(Tick(3)), std::invalid_argument);
  EXPECT_NO_THROW(q.consume(Tick(6)));  // a skipped tick is the server's business
}

TEST(InputQueue, OlderThanItRemembersIsStale) {
  TestSchema s;
  InputQueue q(s.schema, s.input, {.remember_ticks = 4});
  for (std::uint32_t t = 1; t <= 10; ++t) q.consume(Tick(t));
  EXPECT_EQ(q.receive(Tick(2), stick(s, 0), Tick(11)), InputVerdict::kStale);
  EXPECT_EQ(q.receive(Tick(9), stick(s, 0), Tick(11)), InputVerdict::kLate);
  EXPECT_EQ(q.stats().stale, 1U);
}

TEST(InputQueue, AViewClaimComesOutWithItsInputAndNeverWithAStandIn) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  InputPacket p;
  p.first_tick = Tick(10);
  p.inputs = {stick(s, 0.1F), stick(s, 0.2F)};
  p.view_claims = {ViewClaim{2500}, ViewClaim{2501}};
  EXPECT_EQ(q.receive(p, Tick(10)), 2U);
  // A redundant copy with another claim changes nothing.
  EXPECT_EQ(q.receive(Tick(11), stick(s, 0.2F), Tick(10), ViewClaim{9}), InputVerdict::kDuplicate);
  EXPECT_EQ(q.consume(Tick(10)).view, std::optional<ViewClaim>(ViewClaim{2500}));
  EXPECT_EQ(q.consume(Tick(11)).view, std::optional<ViewClaim>(ViewClaim{2501}));
  const ConsumedInput missing = q.consume(Tick(12));
  EXPECT_TRUE(missing.fallback);
  EXPECT_FALSE(missing.view);
  // An input sent without a claim has none.
  EXPECT_EQ(q.receive(Tick(13), stick(s, 0.3F), Tick(13)), InputVerdict::kAccepted);
  EXPECT_FALSE(q.consume(Tick(13)).view);
}

// Slots are reused every max_ticks_ahead + 1 ticks: an input left behind
// by a skipped tick, or a claim of an earlier input in the same slot,
// never comes out with another tick.
TEST(InputQueue, ReusedSlotsCarryNothingOfTheirEarlierTicks) {
  TestSchema s;
  InputQueue q(s.schema, s.input, {.max_ticks_ahead = 3});  // four slots
  EXPECT_EQ(q.receive(Tick(2), stick(s, 0.2F), Tick(1), ViewClaim{7}), InputVerdict::kAccepted);
  EXPECT_EQ(q.receive(Tick(3), stick(s, 0.3F), Tick(1)), InputVerdict::kAccepted);
  q.consume(Tick(1));
  q.consume(Tick(3));  // tick 2 skipped: its input stays in its slot
  EXPECT_EQ(q.pending(), 0U);
  // Tick 6 shares tick 2's slot; tick 7 shares tick 3's.
  EXPECT_EQ(q.receive(Tick(6), stick(s, 0.6F), Tick(4)), InputVerdict::kAccepted);
  EXPECT_EQ(q.receive(Tick(7), stick(s, 0.7F), Tick(4), ViewClaim{9}), InputVerdict::kAccepted);
  EXPECT_EQ(q.pending(), 2U);
  EXPECT_TRUE(q.consume(Tick(4)).fallback);
  EXPECT_TRUE(q.consume(Tick(5)).fallback);
  const ConsumedInput six = q.consume(Tick(6));
  EXPECT_FALSE(six.fallback);
  EXPECT_EQ(*six.input, stick(s, 0.6F));
  EXPECT_FALSE(six.view);
  const ConsumedInput seven = q.consume(Tick(7));
  EXPECT_EQ(*seven.input, stick(s, 0.7F));
  EXPECT_EQ(seven.view, std::optional<ViewClaim>(ViewClaim{9}));
  // Ten thousand ticks later the ring still holds exactly what was sent.
  for (std::uint32_t t = 8; t < 10'000; ++t) {
    const float x = static_cast<float>((t + 2) % 10) / 10.0F;
    ASSERT_EQ(q.receive(Tick(t + 2), stick(s, x), Tick(t)), InputVerdict::kAccepted) << t;
    const ConsumedInput c = q.consume(Tick(t));
    if (t >= 10) {
      ASSERT_FALSE(c.fallback) << t;
      ASSERT_EQ(*c.input, stick(s, static_cast<float>(t % 10) / 10.0F)) << t;
    }
  }
}

TEST(Record, AssignSlotsRefusesAnotherLength) {
  TestSchema s;
  snapshot::Record r(s.schema, s.input);
  const std::vector<std::uint32_t> longer(r.slots().size() + 1, 0);
  EXPECT_THROW(r.assign_slots(longer), std::invalid_argument);
  const snapshot::Record other = stick(s, 0.4F);
  r.assign_slots(other.slots());
  EXPECT_EQ(r, other);
}

TEST(InputQueue, RejectsBadConfiguration) {
  TestSchema s;
  EXPECT_THROW(InputQueue(s.schema, s.input, {.max_ticks_ahead = 0}), std::invalid_argument);
  EXPECT_THROW(InputQueue(s.schema, s.input, {.remember_ticks = 0}), std::invalid_argument);
  EXPECT_THROW(InputQueue(s.schema, TypeId{77}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::prediction
