// Receiver obligations of the input packet body (input_packet.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <random>

#include "seed.h"
#include "test_game.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::prediction {
namespace {

using testing::TestSchema;

std::vector<std::uint8_t> sample_packet(const TestSchema& s) {
  InputPacket p;
  p.first_tick = Tick(123456);
  p.snapshot_ack = Tick(123400);
  for (int i = 0; i < 6; ++i) {
    snapshot::Record r(s.schema, s.input);
    r.set(s.move, snapshot::Vec2{0.1F * static_cast<float>(i % 3), -0.5F});
    r.set(s.fire, i == 4);
    p.inputs.push_back(r);
  }
  return encode_input_packet(p, s.schema, s.input, 1200).value();
}

TEST(InputPacketAdversarial, RejectsEveryTruncation) {
  TestSchema s;
  const auto bytes = sample_packet(s);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    auto r = decode_input_packet(std::span(bytes).first(n), s.schema, s.input);
    EXPECT_FALSE(r.ok()) << "cut at " << n;
  }
}

TEST(InputPacketAdversarial, RejectsTrailingBytes) {
  TestSchema s;
  auto bytes = sample_packet(s);
  bytes.push_back(0x01);
  EXPECT_FALSE(decode_input_packet(bytes, s.schema, s.input).ok());
}

// Writes a one-input packet with raw codes, as a hostile client could.
std::vector<std::uint8_t> raw_packet(std::uint32_t first_tick, std::uint32_t move_x_code, std::uint32_t move_y_code,
                                     std::optional<std::int64_t> ack_offset = std::nullopt,
                                     std::uint32_t count_minus_one = 0) {
  BitWriter w(64);
  std::uint32_t count = count_minus_one;
  bool has_ack = ack_offset.has_value();
  std::int64_t off = ack_offset.value_or(0);
  std::uint32_t fire = 0;
  w.bits(first_tick, 32);
  w.bits(count, 6);
  w.boolean(has_ack);
  if (has_ack) w.varint_signed(off);
  for (std::uint32_t i = 0; i <= count_minus_one; ++i) {
    if (i > 0) {
      bool changed = false;
      w.boolean(changed);
      continue;
    }
    w.bits(move_x_code, 8);
    w.bits(move_y_code, 8);
    w.bits(fire, 1);
  }
  return w.take();
}

TEST(InputPacketAdversarial, RejectsOutOfRangeInputCodes) {
  TestSchema s;
  const std::uint32_t top = s.schema.type(s.input).components[0].max_code;  // 254 for -1..1 in 1/127 steps
  ASSERT_LT(top, 255U);
  EXPECT_TRUE(decode_input_packet(raw_packet(10, top, 0), s.schema, s.input).ok());
  // A code past the top of the range is what a hostile client sends for an
  // out-of-range, infinite or NaN value: there is no other way to say it.
  auto r = decode_input_packet(raw_packet(10, top + 1, 0), s.schema, s.input);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kOutOfRange);
  EXPECT_FALSE(decode_input_packet(raw_packet(10, 0, 255), s.schema, s.input).ok());
}

TEST(InputPacketAdversarial, RejectsTicksPastTheEndOfTime) {
  TestSchema s;
  const std::uint32_t max = std::numeric_limits<Tick::Rep>::max();
  EXPECT_TRUE(decode_input_packet(raw_packet(max, 0, 0), s.schema, s.input).ok());
  EXPECT_FALSE(decode_input_packet(raw_packet(max, 0, 0, std::nullopt, 1), s.schema, s.input).ok());
  EXPECT_FALSE(decode_input_packet(raw_packet(max - 62, 0, 0, std::nullopt, 63), s.schema, s.input).ok());
  EXPECT_TRUE(decode_input_packet(raw_packet(max - 63, 0, 0, std::nullopt, 63), s.schema, s.input).ok());
  // An ack before tick zero, or past the end.
  EXPECT_FALSE(decode_input_packet(raw_packet(5, 0, 0, 6), s.schema, s.input).ok());
  EXPECT_TRUE(decode_input_packet(raw_packet(5, 0, 0, 5), s.schema, s.input).ok());
  EXPECT_FALSE(decode_input_packet(raw_packet(5, 0, 0, -static_cast<std::int64_t>(max)), s.schema, s.input).ok());
  EXPECT_FALSE(
      decode_input_packet(raw_packet(5, 0, 0, std::numeric_limits<std::int64_t>::min()), s.schema, s.input).ok());
}

TEST(InputPacketAdversarial, RandomBytesNeverCrash) {
  TestSchema s;
  std::mt19937_64 rng(testing::test_seed("RandomBytesNeverCrash"));
  const auto good = sample_packet(s);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> bytes;
    if (i % 2 == 0) {
      bytes.resize(rng() % 64);
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    } else {
      bytes = good;  // flip bits of a valid packet: deeper paths
      for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] ^= static_cast<std::uint8_t>(1U << (rng() % 8));
    }
    auto r = decode_input_packet(bytes, s.schema, s.input);
    if (!r.ok()) continue;
    ++accepted;
    ASSERT_GE(r->inputs.size(), 1U);
    ASSERT_LE(r->inputs.size(), kMaxInputsPerPacket);
    for (const auto& in : r->inputs) {
      const auto m = in.get(s.move);
      ASSERT_TRUE(m.x >= -1.0F && m.x <= 1.0F && m.y >= -1.0F && m.y <= 1.0F);
    }
  }
  std::printf("accepted %d of 20000\n", accepted);
}

}  // namespace
}  // namespace tickwire::prediction
