// The view time inputs carry: rounding, saturation, exact conversion, and
// what a run of claims costs on the wire.

#include "tickwire/core/view_claim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "test_seed.h"

namespace tickwire {
namespace {

constexpr std::uint32_t kRate = 60;

NetworkTime at(std::uint32_t tick, std::int64_t units = 0) { return NetworkTime::from_tick(kRate, Tick(tick), units); }

std::size_t bits_of(std::vector<ViewClaim> claims, Tick first) {
  BitMeasurer m;
  EXPECT_TRUE(serialize_view_claims(m, claims, first, claims.size()));
  return m.bits();
}

Result<std::vector<ViewClaim>> round_trip(std::vector<ViewClaim> claims, Tick first) {
  BitWriter w(1024);
  if (!serialize_view_claims(w, claims, first, claims.size())) return *w.error();
  BitReader r(w.data());
  std::vector<ViewClaim> out;
  if (!serialize_view_claims(r, out, first, claims.size())) return *r.error();
  if (!r.finish()) return *r.error();
  return out;
}

TEST(ViewClaim, IsTheDistanceBehindTheInputTickInSteps) {
  // 10 ticks and a half behind tick 100.
  EXPECT_EQ(make_view_claim(Tick(100), at(89, NetworkTime::kUnitsPerTick / 2)).offset, 2625U);
  EXPECT_EQ(claimed_view_time(Tick(100), ViewClaim{2625}, kRate), at(89, NetworkTime::kUnitsPerTick / 2));
}

TEST(ViewClaim, RoundsToTheNearestStep) {
  EXPECT_EQ(make_view_claim(Tick(100), at(99, NetworkTime::kUnitsPerTick - 1999)).offset, 0U);
  EXPECT_EQ(make_view_claim(Tick(100), at(99, NetworkTime::kUnitsPerTick - 2000)).offset, 1U);
  EXPECT_EQ(make_view_claim(Tick(100), at(99, NetworkTime::kUnitsPerTick - 5999)).offset, 1U);
}

TEST(ViewClaim, SaturatesAtBothEnds) {
  EXPECT_EQ(make_view_claim(Tick(100), at(101)).offset, 0U);  // after the input's tick
  EXPECT_EQ(make_view_claim(Tick(1000), at(0)).offset, kMaxViewOffset);
  // A view before tick zero (a client's first moments) claims tick zero,
  // which a receiver accepts.
  const NetworkTime before_zero = at(0) - Duration::millis(50);
  EXPECT_EQ(make_view_claim(Tick(2), before_zero).offset, 500U);
  EXPECT_EQ(claimed_view_time(Tick(2), make_view_claim(Tick(2), before_zero), kRate), at(0));
  EXPECT_EQ(make_view_claim(Tick(0), before_zero).offset, 0U);
}

TEST(ViewClaim, ConvertsExactlyBothWays) {
  std::mt19937_64 rng(::tickwire::testing::test_seed("ViewClaim.ConvertsExactlyBothWays"));
  std::uniform_int_distribution<std::uint32_t> offset(0, kMaxViewOffset);
  for (int i = 0; i < 1000; ++i) {
    const ViewClaim c{offset(rng)};
    const Tick input(100000 + static_cast<std::uint32_t>(rng() % 1000));
    const auto view = claimed_view_time(input, c, kRate);
    ASSERT_TRUE(view);
    EXPECT_EQ(make_view_claim(input, *view), c);
  }
}

TEST(ViewClaim, ASteadyRunCostsOneBitAfterTheFirst) {
  const std::vector<ViewClaim> steady(10, ViewClaim{2500});
  EXPECT_EQ(bits_of(steady, Tick(1000)), 16U + 9U);
  EXPECT_EQ(bits_of({ViewClaim{2500}, ViewClaim{2503}, ViewClaim{2490}}, Tick(1000)), 16U + 7U + 7U);
  EXPECT_EQ(bits_of({ViewClaim{2500}, ViewClaim{2000}}, Tick(1000)), 16U + 18U);
  ViewClaim one{2500};
  BitMeasurer m;
  EXPECT_TRUE(serialize(m, one));
  EXPECT_EQ(m.bits(), 16U);
}

TEST(ViewClaim, RunsRoundTrip) {
  std::mt19937_64 rng(::tickwire::testing::test_seed("ViewClaim.RunsRoundTrip"));
  for (int i = 0; i < 500; ++i) {
    std::vector<ViewClaim> claims(1 + rng() % 64);
    std::uint32_t v = 2000 + static_cast<std::uint32_t>(rng() % 1000);
    for (ViewClaim& c : claims) {
      const auto kind = rng() % 3;
      if (kind == 1) {
        // A small step, kept inside the range.
        const std::int64_t next = static_cast<std::int64_t>(v) + static_cast<std::int64_t>(rng() % 32) - 16;
        v = static_cast<std::uint32_t>(std::clamp<std::int64_t>(next, 0, kMaxViewOffset));
      }
      if (kind == 2) v = static_cast<std::uint32_t>(rng() % (kMaxViewOffset + 1));
      c.offset = v;
    }
    const auto back = round_trip(claims, Tick(1000));
    ASSERT_TRUE(back.ok()) << back.error().detail;
    EXPECT_EQ(back.value(), claims);
  }
}

TEST(ViewClaim, WritingNeedsOneClaimPerInput) {
  std::vector<ViewClaim> two(2);
  BitWriter w(64);
  EXPECT_FALSE(serialize_view_claims(w, two, Tick(100), 3));
  EXPECT_EQ(w.error()->code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace tickwire
