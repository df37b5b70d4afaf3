// Receiver obligations of the server's input queue (input_queue.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_game.h"
#include "tickwire/prediction/input_queue.h"
#include "tickwire/prediction/input_validation.h"

namespace tickwire::prediction {
namespace {

using testing::TestSchema;

snapshot::Record stick(const TestSchema& s, float x, float y = 0.0F) {
  snapshot::Record r(s.schema, s.input);
  r.set(s.move, snapshot::Vec2{x, y});
  return r;
}

TEST(InputQueueAdversarial, RejectsInputsTooFarAhead) {
  TestSchema s;
  InputQueue q(s.schema, s.input, {.max_ticks_ahead = 10});
  EXPECT_EQ(q.receive(Tick(110), stick(s, 0), Tick(100)), InputVerdict::kAccepted);
  EXPECT_EQ(q.receive(Tick(111), stick(s, 0), Tick(100)), InputVerdict::kTooFarAhead);
  EXPECT_EQ(q.receive(Tick(4'000'000'000U), stick(s, 0), Tick(100)), InputVerdict::kTooFarAhead);
  EXPECT_EQ(q.stats().too_far_ahead, 2U);
}

TEST(InputQueueAdversarial, FutureClaimsBuyNoSimulation) {
  TestSchema s;
  InputQueue q(s.schema, s.input, {.max_ticks_ahead = 64});
  // Inputs for every tick of the window and far beyond: one per tick is
  // consumed, and the queue never holds more than the window.
  for (std::uint32_t t = 100; t < 100 + 1000; ++t) q.receive(Tick(t), stick(s, 0.5F), Tick(100));
  EXPECT_LE(q.pending(), 65U);
  for (std::uint32_t t = 100; t < 110; ++t) EXPECT_FALSE(q.consume(Tick(t)).fallback);
  EXPECT_EQ(q.stats().consumed, 10U);
  EXPECT_GT(q.stats().too_far_ahead, 900U);
}

TEST(InputQueueAdversarial, RejectsNonFiniteInputs) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(q.receive(Tick(1), stick(s, nan), Tick(1)), InputVerdict::kInvalid);
  EXPECT_EQ(q.receive(Tick(1), stick(s, 0, inf), Tick(1)), InputVerdict::kInvalid);
  EXPECT_EQ(q.receive(Tick(1), stick(s, -inf), Tick(1)), InputVerdict::kInvalid);
  EXPECT_EQ(q.stats().invalid, 3U);
  // Never simulated: the tick gets the stand-in.
  EXPECT_TRUE(q.consume(Tick(1)).fallback);
}

TEST(InputQueueAdversarial, RejectsOutOfRangeInputs) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  EXPECT_EQ(q.receive(Tick(1), stick(s, 1.5F), Tick(1)), InputVerdict::kInvalid);
  EXPECT_EQ(q.receive(Tick(1), stick(s, 0, -1e30F), Tick(1)), InputVerdict::kInvalid);
  snapshot::Record r(s.schema, s.input);
  std::vector<std::uint32_t> slots(r.slots().begin(), r.slots().end());
  slots[2] = 7;  // a bool field holding 7
  EXPECT_EQ(check_input(r.spec(), slots), InputFault::kOutOfRange);
  EXPECT_EQ(q.receive(Tick(1), stick(s, 1.0F, -1.0F), Tick(1)),
            InputVerdict::kAccepted);  // the bounds themselves are fine
}

TEST(InputQueueAdversarial, RejectsInputOfAnotherType) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  EXPECT_EQ(q.receive(Tick(1), snapshot::Record(s.schema, s.player), Tick(1)), InputVerdict::kInvalid);
}

TEST(InputQueueAdversarial, DropsLateInputsAndCountsThem) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  q.consume(Tick(1));  // without an input
  EXPECT_EQ(q.receive(Tick(1), stick(s, 0.2F), Tick(2)), InputVerdict::kLate);
  EXPECT_EQ(q.receive(Tick(1), stick(s, 0.2F), Tick(2)), InputVerdict::kDuplicate);  // late once per tick
  EXPECT_EQ(q.stats().late, 1U);
  EXPECT_EQ(q.stats().missing, 1U);
  // Later copies stay duplicates, whatever the server clock says.
  EXPECT_EQ(q.receive(Tick(1), stick(s, 0.2F), Tick(50)), InputVerdict::kDuplicate);
  EXPECT_EQ(q.pending(), 0U);
}

TEST(InputQueueAdversarial, DeduplicatesRepeatedInputs) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  EXPECT_EQ(q.receive(Tick(3), stick(s, 0.2F), Tick(1)), InputVerdict::kAccepted);
  // A second, different claim for the same tick does not replace the first.
  EXPECT_EQ(q.receive(Tick(3), stick(s, -0.9F), Tick(1)), InputVerdict::kDuplicate);
  q.consume(Tick(1));
  q.consume(Tick(2));
  EXPECT_EQ(q.consume(Tick(3)).input->get(s.move).x, stick(s, 0.2F).get(s.move).x);
}

TEST(InputQueueAdversarial, ConsumesAtMostOneInputPerTick) {
  TestSchema s;
  InputQueue q(s.schema, s.input);
  for (int copy = 0; copy < 5; ++copy) q.receive(Tick(7), stick(s, 0.1F), Tick(7));
  q.consume(Tick(7));
  EXPECT_THROW(q.consume(Tick(7)), std::invalid_argument);
  EXPECT_EQ(q.stats().consumed, 1U);
}

TEST(InputQueueAdversarial, PacketTicksPastTheEndOfTimeAreNotTrusted) {
  TestSchema s;
  InputQueue q(s.schema, s.input, {.max_ticks_ahead = 64});
  InputPacket p;
  p.first_tick = Tick(std::numeric_limits<Tick::Rep>::max() - 1);
  p.inputs.assign(5, stick(s, 0));
  EXPECT_EQ(q.receive(p, Tick(std::numeric_limits<Tick::Rep>::max() - 3)), 2U);
}

}  // namespace
}  // namespace tickwire::prediction
