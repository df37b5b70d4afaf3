#include "tickwire/prediction/input_history.h"

#include <gtest/gtest.h>

#include "test_game.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::prediction {
namespace {

using testing::TestSchema;

snapshot::Record stick(const TestSchema& s, float x) {
  snapshot::Record r(s.schema, s.input);
  r.set(s.move, snapshot::Vec2{x, 0});
  return r;
}

TEST(InputHistory, PacketCarriesTheNewestAndUnackedInputsUpToTheRedundancy) {
  TestSchema s;
  InputHistory h(s.schema, s.input, {.capacity = 64, .redundancy = 4});
  EXPECT_FALSE(h.make_packet(std::nullopt).has_value());
  h.store(Tick(10), stick(s, 0.1F));
  auto p = h.make_packet(Tick(3));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->first_tick, Tick(10));
  EXPECT_EQ(p->inputs.size(), 1U);
  EXPECT_EQ(p->snapshot_ack, std::optional<Tick>(Tick(3)));
  for (std::uint32_t t = 11; t <= 20; ++t) h.store(Tick(t), stick(s, 0.1F));
  p = h.make_packet(std::nullopt);
  EXPECT_EQ(p->first_tick, Tick(17));
  EXPECT_EQ(p->last_tick(), Tick(20));
}

TEST(InputHistory, APolicyChoosesTheCopiesWithinTheRedundancy) {
  TestSchema s;
  InputHistory h(s.schema, s.input, {.capacity = 64, .redundancy = 6});
  for (std::uint32_t t = 1; t <= 20; ++t) h.store(Tick(t), stick(s, 0.1F));
  EXPECT_EQ(h.make_packet(std::nullopt, 2U)->inputs.size(), 2U);
  EXPECT_EQ(h.make_packet(std::nullopt, 5U)->inputs.size(), 5U);
  // Never more than the configured ceiling, never fewer than the newest.
  EXPECT_EQ(h.make_packet(std::nullopt, 40U)->inputs.size(), 6U);
  EXPECT_EQ(h.make_packet(std::nullopt, 0U)->inputs.size(), 1U);
}

TEST(InputHistory, AcknowledgedInputsAreNotSentAgain) {
  TestSchema s;
  InputHistory h(s.schema, s.input, {.capacity = 64, .redundancy = 8});
  for (std::uint32_t t = 1; t <= 5; ++t) h.store(Tick(t), stick(s, 0.0F));
  auto p = h.make_packet(std::nullopt);
  EXPECT_EQ(p->first_tick, Tick(1));
  h.on_sent(Sequence(7), *p);
  h.on_acked(Sequence(99));  // never sent: ignored
  EXPECT_FALSE(h.acked().has_value());
  h.on_acked(Sequence(7));
  EXPECT_EQ(h.acked(), std::optional<Tick>(Tick(5)));
  h.store(Tick(6), stick(s, 0.0F));
  h.store(Tick(7), stick(s, 0.0F));
  p = h.make_packet(std::nullopt);
  EXPECT_EQ(p->first_tick, Tick(6));
  EXPECT_EQ(p->inputs.size(), 2U);
}

TEST(InputHistory, StoresWhatTheServerWillDecode) {
  TestSchema s;
  InputHistory h(s.schema, s.input);
  h.store(Tick(1), stick(s, 0.123456F));
  snapshot::Record snapped = stick(s, 0.123456F);
  snapped.quantize();
  EXPECT_EQ(*h.find(Tick(1)), snapped);
  EXPECT_NE(h.find(Tick(1))->get(s.move).x, 0.123456F);
}

TEST(InputHistory, AGapEndsThePacket) {
  TestSchema s;
  InputHistory h(s.schema, s.input, {.capacity = 64, .redundancy = 8});
  h.store(Tick(1), stick(s, 0.0F));
  h.store(Tick(3), stick(s, 0.0F));
  auto p = h.make_packet(std::nullopt);
  EXPECT_EQ(p->first_tick, Tick(3));
  EXPECT_EQ(p->inputs.size(), 1U);
}

TEST(InputHistory, APacketCarriesViewClaimsOnlyWhenEveryInputHasOne) {
  TestSchema s;
  InputHistory h(s.schema, s.input, {.capacity = 64, .redundancy = 4});
  for (std::uint32_t t = 10; t <= 13; ++t) h.store(Tick(t), stick(s, 0.0F), ViewClaim{2500 + t});
  auto p = h.make_packet(std::nullopt);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->view_claims.size(), 4U);
  EXPECT_EQ(p->view_claims[0], ViewClaim{2510});
  EXPECT_EQ(p->view_claims[3], ViewClaim{2513});
  EXPECT_EQ(*h.find_view(Tick(12)), ViewClaim{2512});
  // An input stored again without one: the packet carries none.
  h.store(Tick(12), stick(s, 0.5F));
  EXPECT_EQ(h.find_view(Tick(12)), nullptr);
  EXPECT_TRUE(h.make_packet(std::nullopt)->view_claims.empty());
}

TEST(InputHistory, RejectsBadConfiguration) {
  TestSchema s;
  EXPECT_THROW(InputHistory(s.schema, s.input, {.capacity = 0}), std::invalid_argument);
  EXPECT_THROW(InputHistory(s.schema, s.input, {.capacity = 8, .redundancy = 0}), std::invalid_argument);
  EXPECT_THROW(InputHistory(s.schema, s.input, {.capacity = 8, .redundancy = 65}), std::invalid_argument);
  EXPECT_THROW(InputHistory(s.schema, TypeId{99}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::prediction

namespace tickwire::prediction {
namespace {

// A packet written over the last one (as the client reuses its storage)
// is the packet made fresh: the same fields and the same bytes, whether
// it holds more inputs than the last, fewer, or loses its view claims.
TEST(InputHistory, PacketWrittenOverTheLastEqualsAFreshOne) {
  TestSchema s;
  InputHistory h(s.schema, s.input, {.capacity = 64, .redundancy = 8});
  InputPacket reused;
  EXPECT_FALSE(h.make_packet(std::nullopt, std::nullopt, reused));
  const std::uint32_t copies[] = {1, 5, 8, 2, 8, 3, 1, 6, 4, 8, 2, 7};
  for (std::uint32_t t = 1; t <= 40; ++t) {
    // Ticks 15 to 20 carry no view claim, so packets over them carry none.
    const bool claimed = t < 15 || t > 20;
    h.store(Tick(t), stick(s, 0.05F * static_cast<float>(t % 7)),
            claimed ? std::optional<ViewClaim>(ViewClaim{t * 7}) : std::nullopt);
    if (t % 9 == 0) {
      const auto sent = h.make_packet(std::nullopt);
      h.on_sent(Sequence(static_cast<std::uint16_t>(t)), *sent);
      h.on_acked(Sequence(static_cast<std::uint16_t>(t)));
    }
    const std::uint32_t n = copies[t % std::size(copies)];
    const std::optional<Tick> ack = t % 3 == 0 ? std::optional<Tick>(Tick(t - 2)) : std::nullopt;
    const auto fresh = h.make_packet(ack, n);
    ASSERT_TRUE(fresh.has_value());
    ASSERT_TRUE(h.make_packet(ack, n, reused));
    EXPECT_EQ(reused.first_tick, fresh->first_tick) << "tick " << t;
    EXPECT_EQ(reused.snapshot_ack, fresh->snapshot_ack);
    EXPECT_EQ(reused.inputs, fresh->inputs);
    EXPECT_EQ(reused.view_claims, fresh->view_claims);
    const auto a = encode_input_packet(*fresh, s.schema, s.input, 1200);
    const auto b = encode_input_packet(reused, s.schema, s.input, 1200);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a.value(), b.value()) << "tick " << t;
  }
}

}  // namespace
}  // namespace tickwire::prediction
