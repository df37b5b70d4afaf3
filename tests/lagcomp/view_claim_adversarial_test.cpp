// Receiver obligations of the view time inputs carry
// (core/include/tickwire/core/view_claim.h, docs/wire-format.md): one test
// per obligation, named after it.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "test_seed.h"
#include "tickwire/core/view_claim.h"
#include "tickwire/lagcomp/rewind_policy.h"

namespace tickwire {
namespace {

constexpr std::uint32_t kRate = 60;

// Decodes `count` claims for inputs from `first` out of exactly `bytes`.
Result<std::vector<ViewClaim>> decode_claims(std::span<const std::uint8_t> bytes, Tick first, std::size_t count) {
  BitReader r(bytes);
  std::vector<ViewClaim> out;
  if (!serialize_view_claims(r, out, first, count)) return *r.error();
  if (!r.finish()) return *r.error();
  return out;
}

std::vector<std::uint8_t> encode_claims(std::vector<ViewClaim> claims, Tick first) {
  BitWriter w(1024);
  EXPECT_TRUE(serialize_view_claims(w, claims, first, claims.size()));
  return w.take();
}

// Hand-written bits for inputs the writer would never produce.
struct Bits {
  BitWriter w{64};
  Bits& put(std::uint32_t v, int n) {
    EXPECT_TRUE(w.bits(v, n));
    return *this;
  }
  std::vector<std::uint8_t> take() { return w.take(); }
};

TEST(ViewClaimObligations, RejectsEveryTruncatedClaimRun) {
  // All three codes: a full first, same, small change, full.
  const auto bytes = encode_claims({ViewClaim{2500}, ViewClaim{2500}, ViewClaim{2497}, ViewClaim{900}}, Tick(1000));
  ASSERT_TRUE(decode_claims(bytes, Tick(1000), 4).ok());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const auto cut = decode_claims(std::span(bytes).first(n), Tick(1000), 4);
    ASSERT_FALSE(cut.ok()) << "cut at " << n;
    EXPECT_EQ(cut.error().code, ErrorCode::kTruncated);
  }
}

TEST(ViewClaimObligations, RejectsOffsetsOutsideTheirRange) {
  // The top offset, then a small change of +1 (10, then 5 bits: +1 is
  // 17 above the bottom of -16..15).
  const auto over = Bits().put(kMaxViewOffset, 16).put(1, 1).put(0, 1).put(17, 5).take();
  const auto r1 = decode_claims(over, Tick(1000), 2);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().code, ErrorCode::kOutOfRange);
  // Offset 0, then -1.
  const auto under = Bits().put(0, 16).put(1, 1).put(0, 1).put(15, 5).take();
  const auto r2 = decode_claims(under, Tick(1000), 2);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().code, ErrorCode::kOutOfRange);
  // The same codes landing inside the range are fine: 5, then -5.
  const auto inside = decode_claims(Bits().put(5, 16).put(1, 1).put(0, 1).put(11, 5).take(), Tick(1000), 2);
  ASSERT_TRUE(inside.ok());
  EXPECT_EQ(inside.value()[1].offset, 0U);
}

TEST(ViewClaimObligations, RejectsViewTimesBeforeTickZero) {
  // The input of tick 1 can look back at most one tick (250 steps).
  EXPECT_TRUE(decode_claims(Bits().put(250, 16).take(), Tick(1), 1).ok());
  const auto early = decode_claims(Bits().put(251, 16).take(), Tick(1), 1);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().code, ErrorCode::kOutOfRange);
  EXPECT_FALSE(decode_claims(Bits().put(1, 16).take(), Tick(0), 1).ok());
  // Checked per input: the second input (tick 1) may reach 250, the
  // first (tick 0) only 0.
  EXPECT_TRUE(decode_claims(encode_claims({ViewClaim{0}, ViewClaim{250}}, Tick(0)), Tick(0), 2).ok());
  EXPECT_FALSE(decode_claims(encode_claims({ViewClaim{0}, ViewClaim{251}}, Tick(0)), Tick(0), 2).ok());
  EXPECT_FALSE(claimed_view_time(Tick(1), ViewClaim{251}, kRate));
}

TEST(ViewClaimObligations, ClaimsPassTheRewindPolicyBeforeUse) {
  // A claim that decodes (in range, after tick zero) but reaches 200
  // ticks back: the policy replaces it with the server's estimate, then
  // keeps the time inside the history.
  const Tick input(10000);
  const auto decoded = decode_claims(encode_claims({ViewClaim{200 * 250}}, input), input, 1);
  ASSERT_TRUE(decoded.ok());
  const auto claimed = claimed_view_time(input, decoded.value()[0], kRate);
  ASSERT_TRUE(claimed);
  const NetworkTime now = NetworkTime::from_tick(kRate, input);
  const lagcomp::TimeRange history{now - Duration::millis(250), now};
  const NetworkTime estimate = lagcomp::estimate_view_time(now, Duration::millis(100), Duration::millis(50));
  lagcomp::RewindPolicy policy;
  const auto d = policy.decide(claimed, estimate, history);
  EXPECT_TRUE(d.replaced);
  EXPECT_EQ(d.time, estimate);
  // A forged claim just inside the tolerance is believed, but never
  // beyond the history.
  const auto edge = policy.decide(estimate - Duration::millis(200), estimate, history);
  EXPECT_FALSE(edge.replaced);
  EXPECT_TRUE(edge.clamped);
  EXPECT_EQ(edge.time, history.oldest);
  EXPECT_EQ(policy.stats().replaced, 1U);
  EXPECT_EQ(policy.stats().clamped, 1U);
}

TEST(ViewClaimObligations, RandomClaimBytesNeverCrash) {
  std::mt19937_64 rng(::tickwire::testing::test_seed("ViewClaimObligations.RandomClaimBytesNeverCrash"));
  std::size_t accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 24);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const Tick first(static_cast<Tick::Rep>(rng() % 400));
    const std::size_t count = 1 + rng() % 64;
    const auto r = decode_claims(bytes, first, count);
    if (!r.ok()) continue;
    ++accepted;
    ASSERT_EQ(r.value().size(), count);
    for (std::size_t k = 0; k < count; ++k) {
      const ViewClaim c = r.value()[k];
      ASSERT_LE(c.offset, kMaxViewOffset);
      ASSERT_TRUE(claimed_view_time(first + static_cast<std::int64_t>(k), c, kRate));
    }
  }
  std::printf("%zu of 20000 random inputs decoded\n", accepted);
}

}  // namespace
}  // namespace tickwire
