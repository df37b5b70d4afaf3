// The time block of a snapshot on the wire: round trips, and one test per
// receiver obligation (docs/time.md, "On the wire").
#include "tickwire/timesync/snapshot_timing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "tickwire/core/serialize.h"

namespace tickwire::timesync {
namespace {

SnapshotTimeBlock full_block() {
  SnapshotTimeBlock b;
  b.timing = SnapshotTiming{Tick(123456), 654321};
  InputFeedback f;
  f.lead = InputFeedback::Lead{Tick(123460), -300};
  f.missed_total = 65535;
  f.late_total = 7;
  b.feedback = f;
  return b;
}

std::vector<std::uint8_t> encoded(const SnapshotTimeBlock& b) {
  auto bytes = encode(b, 64);
  EXPECT_TRUE(bytes.ok());
  return bytes.value();
}

std::size_t measure_bits(SnapshotTimeBlock b) {
  BitMeasurer m;
  EXPECT_TRUE(serialize(m, b));
  return m.bits();
}

TEST(SnapshotTiming, RoundTripsWithAndWithoutFeedback) {
  for (SnapshotTimeBlock b : {full_block(), SnapshotTimeBlock{SnapshotTiming{Tick(5), 0}, std::nullopt}}) {
    SnapshotTimeBlock out;
    ASSERT_TRUE(decode(encoded(b), out).ok());
    EXPECT_EQ(out, b);
  }
  SnapshotTimeBlock no_lead = full_block();
  no_lead.feedback->lead.reset();
  SnapshotTimeBlock out;
  ASSERT_TRUE(decode(encoded(no_lead), out).ok());
  EXPECT_EQ(out, no_lead);
}

TEST(SnapshotTiming, RoundTripsTheArrivalsOfEveryCountAndSpread) {
  for (const std::uint16_t inputs :
       {std::uint16_t{2}, std::uint16_t{3}, std::uint16_t{4}, std::uint16_t{5}, kMaxFeedbackInputs}) {
    for (const std::int32_t spread : {0, 1, kMaxSmallSpreadUnits, kMaxSmallSpreadUnits + 1, kMaxLeadUnits + 300}) {
      SnapshotTimeBlock b = full_block();
      InputFeedback::Lead& lead = *b.feedback->lead;
      lead.inputs = inputs;
      // The listed margins: `spread` last, smaller ones before it.
      const std::size_t n = lead.spread_count();
      for (std::size_t i = 0; i < n; ++i) lead.spreads[i] = spread / static_cast<std::int32_t>(n - i);
      SnapshotTimeBlock out;
      ASSERT_TRUE(decode(encoded(b), out).ok()) << inputs << " inputs, spread " << spread;
      EXPECT_EQ(out, b);
      EXPECT_EQ(out.feedback->lead->best_units(), -300 + spread);
    }
  }
}

TEST(SnapshotTiming, ListsEveryMarginOfUpToFourInputsAndTheBestBeyond) {
  InputFeedback::Lead lead{Tick(1), 0};
  for (std::uint16_t inputs = 1; inputs <= kMaxListedInputs; ++inputs) {
    lead.inputs = inputs;
    EXPECT_EQ(lead.spread_count(), inputs - 1U);
  }
  lead.inputs = kMaxListedInputs + 1;
  EXPECT_EQ(lead.spread_count(), 1U);
}

TEST(SnapshotTiming, IsCompact) {
  // 32-bit tick, 20-bit fraction, flags, 13-bit offset, 16-bit lead,
  // 3-bit count of one input, 2 x 16-bit totals.
  EXPECT_EQ(measure_bytes(full_block()), 15u);
  EXPECT_EQ(measure_bytes(SnapshotTimeBlock{}), 7u);
  // The usual report, two inputs a few milliseconds apart: 11 bits more,
  // and 11 more for each further input listed.
  SnapshotTimeBlock two = full_block();
  two.feedback->lead->inputs = 2;
  two.feedback->lead->spreads[0] = 80;
  EXPECT_EQ(measure_bits(two), measure_bits(full_block()) + 11);
  EXPECT_EQ(measure_bytes(two), 17u);
  SnapshotTimeBlock three = two;
  three.feedback->lead->inputs = 3;
  three.feedback->lead->spreads[1] = 200;
  EXPECT_EQ(measure_bits(three), measure_bits(two) + 11);
  // The widest: four inputs, each spread past its small field.
  SnapshotTimeBlock widest = full_block();
  widest.feedback->lead->inputs = kMaxListedInputs;
  widest.feedback->lead->spreads = {kMaxLeadUnits + 300, kMaxLeadUnits + 300, kMaxLeadUnits + 300};
  EXPECT_EQ(measure_bytes(widest), 22u);
  widest.feedback->lead->inputs = kMaxFeedbackInputs;  // a wide count, one spread
  widest.feedback->lead->spreads = {kMaxLeadUnits + 300, 0, 0};
  EXPECT_EQ(measure_bytes(widest), 19u);
}

TEST(SnapshotTiming, TheWriterRefusesArrivalsAReaderWouldReject) {
  SnapshotTimeBlock b = full_block();
  InputFeedback::Lead& lead = *b.feedback->lead;
  lead.spreads[0] = 5;  // one input cannot spread
  EXPECT_FALSE(encode(b, 64).ok());
  lead.inputs = 2;
  lead.spreads[0] = -1;  // a margin below the worst
  EXPECT_FALSE(encode(b, 64).ok());
  lead.spreads[0] = kMaxLeadUnits + 301;  // above the range (the worst is -300)
  EXPECT_FALSE(encode(b, 64).ok());
  lead.spreads[0] = 0;
  lead.spreads[1] = 7;  // beyond the two inputs
  EXPECT_FALSE(encode(b, 64).ok());
  lead.inputs = kMaxListedInputs + 1;  // beyond the listed: only the best goes
  EXPECT_FALSE(encode(b, 64).ok());
  lead.spreads[1] = 0;
  lead.inputs = 0;
  EXPECT_FALSE(encode(b, 64).ok());
  lead.inputs = kMaxFeedbackInputs + 1;
  EXPECT_FALSE(encode(b, 64).ok());
}

TEST(SnapshotTiming, TimeConvertsExactly) {
  const NetworkTime t = NetworkTime::from_tick(60, Tick(1000), 250'000);
  EXPECT_EQ(SnapshotTiming::from(t).at(60), t);
}

TEST(SnapshotTimingObligations, RejectsEveryTruncation) {
  const auto full = encoded(full_block());
  for (std::size_t len = 0; len < full.size(); ++len) {
    SnapshotTimeBlock out;
    EXPECT_FALSE(decode(std::span<const std::uint8_t>(full.data(), len), out).ok()) << "length " << len;
  }
}

TEST(SnapshotTimingObligations, RejectsTrailingBytes) {
  auto bytes = encoded(full_block());
  bytes.push_back(0x5A);
  SnapshotTimeBlock out;
  EXPECT_FALSE(decode(bytes, out).ok());
}

TEST(SnapshotTimingObligations, RejectsFractionOutOfRange) {
  // Write a fraction one above the largest with a wider field of the same
  // layout: 32-bit tick, then 20 bits.
  BitWriter w(16);
  std::uint32_t tick = 10;
  std::int64_t fraction = NetworkTime::kUnitsPerTick;  // one past the end
  bool has_feedback = false;
  ASSERT_TRUE(w.bits(tick, 32));
  ASSERT_TRUE(w.integer(fraction, std::int64_t{0}, std::int64_t{(1 << 20) - 1}));
  ASSERT_TRUE(w.boolean(has_feedback));
  SnapshotTimeBlock out;
  const auto r = decode(w.data(), out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kOutOfRange);
}

TEST(SnapshotTimingObligations, RejectsFeedbackTickOutsideTheRangeOfTick) {
  SnapshotTimeBlock b = full_block();
  b.timing.server_tick = Tick(3);
  b.feedback->lead->input_tick = Tick(0);  // offset -3: fine
  SnapshotTimeBlock out;
  ASSERT_TRUE(decode(encoded(b), out).ok());

  // The same bytes with the reference moved to tick 1: 1 - 3 < 0.
  BitWriter w(32);
  std::uint32_t tick = 1;
  std::int64_t fraction = 0;
  bool yes = true;
  std::int32_t offset = -3;
  std::int32_t units = 10;
  std::uint16_t total = 0;
  ASSERT_TRUE(w.bits(tick, 32) && w.integer(fraction, std::int64_t{0}, NetworkTime::kUnitsPerTick - 1) &&
              w.boolean(yes) && w.boolean(yes) && w.integer(offset, -kMaxFeedbackTickOffset, kMaxFeedbackTickOffset) &&
              w.integer(units, -kMaxLeadUnits, kMaxLeadUnits) &&
              w.integer(total, std::uint16_t{0}, std::uint16_t{0xFFFF}) &&
              w.integer(total, std::uint16_t{0}, std::uint16_t{0xFFFF}));
  const auto r = decode(w.data(), out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kOutOfRange);
}

TEST(SnapshotTimingObligations, RejectsLeadOutOfRange) {
  // 16 bits hold 0..65535, the lead's range only 0..65534 (-32767..32767).
  BitWriter w(32);
  std::uint32_t tick = 100;
  std::int64_t fraction = 0;
  bool yes = true;
  std::int32_t offset = 0;
  std::uint32_t raw_units = 0xFFFF;
  ASSERT_TRUE(w.bits(tick, 32) && w.integer(fraction, std::int64_t{0}, NetworkTime::kUnitsPerTick - 1) &&
              w.boolean(yes) && w.boolean(yes) && w.integer(offset, -kMaxFeedbackTickOffset, kMaxFeedbackTickOffset) &&
              w.bits(raw_units, 16));
  std::uint32_t zero = 0;
  ASSERT_TRUE(w.bits(zero, 32));
  SnapshotTimeBlock out;
  const auto r = decode(w.data(), out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kOutOfRange);
}

// A block up to and including the lead, with `units` as the worst margin,
// for the arrivals that follow to be written by hand.
BitWriter block_up_to_lead(std::int32_t units) {
  BitWriter w(32);
  std::uint32_t tick = 100;
  std::int64_t fraction = 0;
  bool yes = true;
  std::int32_t offset = 0;
  EXPECT_TRUE(w.bits(tick, 32) && w.integer(fraction, std::int64_t{0}, NetworkTime::kUnitsPerTick - 1) &&
              w.boolean(yes) && w.boolean(yes) && w.integer(offset, -kMaxFeedbackTickOffset, kMaxFeedbackTickOffset) &&
              w.integer(units, -kMaxLeadUnits, kMaxLeadUnits));
  return w;
}

void write_totals(BitWriter& w) {
  std::uint32_t zero = 0;
  ASSERT_TRUE(w.bits(zero, 32));
}

TEST(SnapshotTimingObligations, RejectsAnInputCountAboveItsBound) {
  // The wide count field holds 5 + 0..4095; the count's range ends at 4095.
  BitWriter w = block_up_to_lead(10);
  bool large = true;
  std::uint32_t raw = kMaxFeedbackInputs - 5 + 1;  // one past kMaxFeedbackInputs
  ASSERT_TRUE(w.boolean(large) && w.bits(raw, 12));
  bool small = false;
  std::int32_t spread = 0;
  ASSERT_TRUE(w.boolean(small) && w.integer(spread, 0, kMaxSmallSpreadUnits));
  write_totals(w);
  SnapshotTimeBlock out;
  const auto r = decode(w.data(), out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kOutOfRange);
}

TEST(SnapshotTimingObligations, RejectsASpreadAboveItsBound) {
  // The wide spread field holds 1024 + 0..65535; the spread's range ends at
  // 2 x 32767.
  BitWriter w = block_up_to_lead(-kMaxLeadUnits);
  bool small = false;
  std::uint16_t inputs = 2;
  bool large = true;
  std::uint32_t raw = 0xFFFF;
  ASSERT_TRUE(w.boolean(small) && w.integer(inputs, std::uint16_t{1}, kMaxSmallFeedbackInputs) && w.boolean(large) &&
              w.bits(raw, 16));
  write_totals(w);
  SnapshotTimeBlock out;
  const auto r = decode(w.data(), out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kOutOfRange);
}

TEST(SnapshotTimingObligations, RejectsAMarginAboveTheLeadRange) {
  // Worst 32000, three inputs: one 500 above it (32500, fine), one 1000
  // above (33000, past +32767). A spread cannot put a margin below the
  // worst: it has no sign.
  BitWriter w = block_up_to_lead(32000);
  bool small = false;
  std::uint16_t inputs = 3;
  std::int32_t fine = 500;
  std::int32_t beyond = 1000;
  ASSERT_TRUE(w.boolean(small) && w.integer(inputs, std::uint16_t{1}, kMaxSmallFeedbackInputs) && w.boolean(small) &&
              w.integer(fine, 0, kMaxSmallSpreadUnits) && w.boolean(small) &&
              w.integer(beyond, 0, kMaxSmallSpreadUnits));
  write_totals(w);
  SnapshotTimeBlock out;
  const auto r = decode(w.data(), out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kOutOfRange);
}

TEST(SnapshotTimingObligations, ReadsNoSpreadForASingleInput) {
  // One input: the count field ends the arrivals and the totals follow, so
  // a best different from the worst cannot even be said.
  BitWriter w = block_up_to_lead(42);
  bool small = false;
  std::uint16_t inputs = 1;
  ASSERT_TRUE(w.boolean(small) && w.integer(inputs, std::uint16_t{1}, kMaxSmallFeedbackInputs));
  std::uint16_t missed = 9;
  std::uint16_t late = 4;
  ASSERT_TRUE(w.integer(missed, std::uint16_t{0}, std::uint16_t{0xFFFF}) &&
              w.integer(late, std::uint16_t{0}, std::uint16_t{0xFFFF}));
  SnapshotTimeBlock out;
  ASSERT_TRUE(decode(w.data(), out).ok());
  EXPECT_EQ(out.feedback->lead->inputs, 1);
  EXPECT_EQ(out.feedback->lead->best_units(), 42);
  EXPECT_EQ(out.feedback->missed_total, 9);
  EXPECT_EQ(out.feedback->late_total, 4);
}

TEST(SnapshotTimingObligations, RandomBytesNeverCrash) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "[   SEED   ] " << seed << std::endl;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 24);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    SnapshotTimeBlock out;
    const auto r = decode(bytes, out);
    if (r.ok()) {
      // Whatever decodes is within its declared ranges.
      EXPECT_LT(out.timing.fraction_units, NetworkTime::kUnitsPerTick);
      if (out.feedback && out.feedback->lead) {
        EXPECT_LE(std::abs(out.feedback->lead->units), kMaxLeadUnits);
        const InputFeedback::Lead& lead = *out.feedback->lead;
        EXPECT_GE(lead.inputs, 1);
        EXPECT_LE(lead.inputs, kMaxFeedbackInputs);
        EXPECT_GE(lead.best_units(), lead.units);
        EXPECT_LE(lead.best_units(), kMaxLeadUnits);
        for (std::size_t k = 0; k < lead.spreads.size(); ++k) {
          if (k < lead.spread_count()) {
            EXPECT_GE(lead.spreads[k], 0);
            EXPECT_LE(lead.units + lead.spreads[k], kMaxLeadUnits);
          } else {
            EXPECT_EQ(lead.spreads[k], 0);
          }
        }
        EXPECT_LE(std::abs(out.feedback->lead->input_tick - out.timing.server_tick), kMaxFeedbackTickOffset);
      }
    }
  }
}

}  // namespace
}  // namespace tickwire::timesync
