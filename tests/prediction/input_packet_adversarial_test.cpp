// Receiver obligations of the input packet body (input_packet.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <random>

#include "test_game.h"
#include "test_seed.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::prediction {
namespace {

using testing::TestSchema;

// With view claims using all three of their codes (same, small change,
// full), so every truncation cuts through them too.
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
  p.view_claims = {ViewClaim{2500}, ViewClaim{2500}, ViewClaim{2503}, ViewClaim{2503}, ViewClaim{900}, ViewClaim{901}};
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

// Writes a one-input packet with raw codes, as a hostile client could;
// with raw view claims (16 bits each, written as full codes) when given.
std::vector<std::uint8_t> raw_packet(std::uint32_t first_tick, std::uint32_t move_x_code, std::uint32_t move_y_code,
                                     std::optional<std::int64_t> ack_offset = std::nullopt,
                                     std::uint32_t count_minus_one = 0, std::vector<std::uint32_t> views = {}) {
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
  bool has_views = !views.empty();
  w.boolean(has_views);
  for (std::size_t i = 0; i < views.size(); ++i) {
    if (i > 0) {
      bool changed = true;
      bool full = true;
      w.boolean(changed);
      w.boolean(full);
    }
    w.bits(views[i], 16);
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

TEST(InputPacketAdversarial, RejectsBadViewClaims) {
  TestSchema s;
  // Tick 2 may look back two ticks: 500 steps.
  const auto fine = decode_input_packet(raw_packet(2, 0, 0, std::nullopt, 0, {500}), s.schema, s.input);
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine->view_claims, std::vector<ViewClaim>{ViewClaim{500}});
  const auto early = decode_input_packet(raw_packet(2, 0, 0, std::nullopt, 0, {501}), s.schema, s.input);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().code, ErrorCode::kOutOfRange);
  // Checked against each input's own tick: the second input is tick 3.
  EXPECT_TRUE(decode_input_packet(raw_packet(2, 0, 0, std::nullopt, 1, {500, 750}), s.schema, s.input).ok());
  EXPECT_FALSE(decode_input_packet(raw_packet(2, 0, 0, std::nullopt, 1, {500, 751}), s.schema, s.input).ok());
  // A small change below zero: claims 3 then 0 (a change of -3), with the
  // change's 5-bit code lowered by one to say -4.
  InputPacket p;
  p.first_tick = Tick(2000);
  p.inputs = {snapshot::Record(s.schema, s.input), snapshot::Record(s.schema, s.input)};
  p.view_claims = {ViewClaim{3}, ViewClaim{0}};
  auto good = encode_input_packet(p, s.schema, s.input, 1200).value();
  ASSERT_TRUE(decode_input_packet(good, s.schema, s.input).ok());
  BitReader probe(good);
  InputPacket decoded;
  ASSERT_TRUE(serialize_input_packet(probe, decoded, s.schema, s.input));
  const std::size_t code_at = probe.bits_read() - 5;  // the packet's last 5 bits
  const auto bit = [&good](std::size_t i) { return (static_cast<unsigned>(good[i / 8]) >> (i % 8)) & 1U; };
  const auto set_bit = [&good](std::size_t i, std::uint32_t v) {
    const auto mask = static_cast<std::uint8_t>(1U << (i % 8));
    good[i / 8] = static_cast<std::uint8_t>(v != 0 ? (good[i / 8] | mask) : (good[i / 8] & ~mask));
  };
  std::uint32_t code = 0;
  for (std::size_t b = 0; b < 5; ++b) code |= bit(code_at + b) << b;
  EXPECT_EQ(code, 13U);  // -3 + 16
  code -= 1;
  for (std::size_t b = 0; b < 5; ++b) set_bit(code_at + b, (code >> b) & 1U);
  const auto below = decode_input_packet(good, s.schema, s.input);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.error().code, ErrorCode::kOutOfRange);
}

TEST(InputPacketAdversarial, RandomBytesNeverCrash) {
  TestSchema s;
  std::mt19937_64 rng(::tickwire::testing::test_seed("RandomBytesNeverCrash"));
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
    ASSERT_TRUE(r->view_claims.empty() || r->view_claims.size() == r->inputs.size());
    for (std::size_t k = 0; k < r->view_claims.size(); ++k) {
      ASSERT_TRUE(claimed_view_time(r->first_tick + static_cast<std::int64_t>(k), r->view_claims[k], 60));
    }
  }
  std::printf("accepted %d of 20000\n", accepted);
}

}  // namespace
}  // namespace tickwire::prediction
