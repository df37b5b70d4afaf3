#include "tickwire/prediction/input_packet.h"

#include <gtest/gtest.h>

#include "test_game.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/core/serialize.h"

namespace tickwire::prediction {
namespace {

using testing::TestSchema;

snapshot::Record input(const TestSchema& s, float x, float y, bool fire) {
  snapshot::Record r(s.schema, s.input);
  r.set(s.move, snapshot::Vec2{x, y});
  r.set(s.fire, fire);
  r.quantize();
  return r;
}

TEST(InputPacket, RoundTripsInputsTicksAndAck) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(1000);
  p.snapshot_ack = Tick(990);
  p.inputs = {input(s, 0.5F, -0.25F, false), input(s, 0.5F, -0.25F, true), input(s, -1.0F, 1.0F, true)};
  auto bytes = encode_input_packet(p, s.schema, s.input, 1200);
  ASSERT_TRUE(bytes.ok()) << bytes.error().detail;
  auto back = decode_input_packet(*bytes, s.schema, s.input);
  ASSERT_TRUE(back.ok()) << back.error().detail;
  EXPECT_EQ(back->first_tick, Tick(1000));
  EXPECT_EQ(back->snapshot_ack, std::optional<Tick>(Tick(990)));
  ASSERT_EQ(back->inputs.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(back->inputs[i], p.inputs[i]) << i;
  EXPECT_EQ(back->last_tick(), Tick(1002));
}

// A packet object read into again (as the server reads every input packet
// into one) comes out as a fresh one would: more inputs than last time,
// fewer, with and without claims and acks, and records made under another
// schema object (a different game) are replaced, not reused.
TEST(InputPacket, ReadingIntoAUsedPacketEqualsReadingIntoAFreshOne) {
  TestSchema s;
  const TestSchema other;
  InputPacket reused;
  reused.inputs = {snapshot::Record(other.schema, other.input)};
  const std::size_t counts[] = {3, 1, 5, 5, 2, 8, 1};
  for (std::size_t k = 0; k < std::size(counts); ++k) {
    InputPacket p;
    p.first_tick = Tick(100 + static_cast<std::uint32_t>(k) * 10);
    if (k % 2 == 0) p.snapshot_ack = Tick(90 + static_cast<std::uint32_t>(k));
    for (std::size_t i = 0; i < counts[k]; ++i) {
      p.inputs.push_back(input(s, 0.125F * static_cast<float>(i + k), -0.25F, (i + k) % 3 == 0));
    }
    if (k % 3 == 1) p.view_claims.assign(counts[k], ViewClaim{static_cast<std::uint32_t>(k * 50)});
    const auto bytes = encode_input_packet(p, s.schema, s.input, 1200).value();
    BitReader r(bytes);
    ASSERT_TRUE(serialize_input_packet(r, reused, s.schema, s.input)) << k;
    const auto fresh = decode_input_packet(bytes, s.schema, s.input).value();
    EXPECT_EQ(reused.first_tick, fresh.first_tick) << k;
    EXPECT_EQ(reused.snapshot_ack, fresh.snapshot_ack) << k;
    EXPECT_EQ(reused.inputs, fresh.inputs) << k;
    EXPECT_EQ(reused.view_claims, fresh.view_claims) << k;
    for (const auto& record : reused.inputs) EXPECT_EQ(&record.spec(), &s.schema.type(s.input)) << k;
  }
}

TEST(InputPacket, AckMayBeAbsentOrAheadOfTheInputs) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(5);
  p.inputs = {input(s, 0, 0, false)};
  auto back = decode_input_packet(encode_input_packet(p, s.schema, s.input, 1200).value(), s.schema, s.input);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->snapshot_ack.has_value());
  p.snapshot_ack = Tick(9);  // a client behind the server at start-up
  back = decode_input_packet(encode_input_packet(p, s.schema, s.input, 1200).value(), s.schema, s.input);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->snapshot_ack, std::optional<Tick>(Tick(9)));
}

TEST(InputPacket, RoundTripsViewClaims) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(1000);
  p.inputs = {input(s, 0, 0, false), input(s, 0, 0, true), input(s, 0, 0, true)};
  p.view_claims = {ViewClaim{2500}, ViewClaim{2502}, ViewClaim{40}};
  auto back = decode_input_packet(encode_input_packet(p, s.schema, s.input, 1200).value(), s.schema, s.input);
  ASSERT_TRUE(back.ok()) << back.error().detail;
  EXPECT_EQ(back->view_claims, p.view_claims);
  p.view_claims.clear();
  back = decode_input_packet(encode_input_packet(p, s.schema, s.input, 1200).value(), s.schema, s.input);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->view_claims.empty());
}

std::size_t bits_of(InputPacket& p, const TestSchema& s) {
  BitMeasurer m;
  EXPECT_TRUE(serialize_input_packet(m, p, s.schema, s.input));
  return m.bits();
}

TEST(InputPacket, AnUnchangedInputCostsOneBit) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(1);
  p.inputs = {input(s, 0.3F, 0.1F, true)};
  const std::size_t one = bits_of(p, s);
  for (int i = 0; i < 5; ++i) p.inputs.push_back(p.inputs.front());
  EXPECT_EQ(bits_of(p, s), one + 5);
}

TEST(InputPacket, ASteadyViewTimeCostsOneBitAnInputAfterTheFirst) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(1000);
  p.inputs = {input(s, 0.3F, 0.1F, true)};
  const std::size_t without = bits_of(p, s);
  p.view_claims = {ViewClaim{2500}};
  EXPECT_EQ(bits_of(p, s), without + 16);
  for (int i = 0; i < 5; ++i) {
    p.inputs.push_back(p.inputs.front());
    p.view_claims.push_back(ViewClaim{2500});
  }
  EXPECT_EQ(bits_of(p, s), without + 16 + 5 + 5);  // 1 bit per input, 1 per claim
}

TEST(InputPacket, AChangedInputCostsOnlyItsChangedFields) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(1);
  p.inputs = {input(s, 0.3F, 0.1F, false)};
  const std::size_t one = bits_of(p, s);
  p.inputs.push_back(input(s, 0.3F, 0.1F, true));  // only the button
  // changed bit + three field flags + one bit of value
  EXPECT_EQ(bits_of(p, s), one + 1 + 3 + 1);
}

TEST(InputPacket, WritingRefusesWhatCannotBeSent) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(1);
  EXPECT_FALSE(encode_input_packet(p, s.schema, s.input, 1200).ok());  // no inputs
  p.inputs.assign(kMaxInputsPerPacket + 1, input(s, 0, 0, false));
  EXPECT_FALSE(encode_input_packet(p, s.schema, s.input, 1200).ok());
  p.inputs.assign(1, snapshot::Record(s.schema, s.player));  // not the input type
  EXPECT_FALSE(encode_input_packet(p, s.schema, s.input, 1200).ok());
  p.inputs.assign(2, input(s, 0, 0, false));
  p.view_claims = {ViewClaim{10}};  // claims, but not one per input
  EXPECT_FALSE(encode_input_packet(p, s.schema, s.input, 1200).ok());
}

TEST(InputPacket, SixtyFourChangingInputsFitOneDatagram) {
  TestSchema s;
  InputPacket p;
  p.first_tick = Tick(1);
  for (std::size_t i = 0; i < kMaxInputsPerPacket; ++i) {
    p.inputs.push_back(input(s, static_cast<float>(i % 7) / 7.0F, -0.5F, i % 2 == 0));
  }
  auto bytes = encode_input_packet(p, s.schema, s.input, 1200);
  ASSERT_TRUE(bytes.ok());
  EXPECT_LT(bytes->size(), 200U);
}

}  // namespace
}  // namespace tickwire::prediction
