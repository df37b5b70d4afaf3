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

TEST(InputQueue, RejectsBadConfiguration) {
  TestSchema s;
  EXPECT_THROW(InputQueue(s.schema, s.input, {.max_ticks_ahead = 0}), std::invalid_argument);
  EXPECT_THROW(InputQueue(s.schema, s.input, {.remember_ticks = 0}), std::invalid_argument);
  EXPECT_THROW(InputQueue(s.schema, TypeId{77}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::prediction
