// The redundancy policy from hand-made runs of acknowledged and lost packets.
#include "tickwire/prediction/input_redundancy.h"

#include <gtest/gtest.h>

#include <functional>

namespace tickwire::prediction {
namespace {

Time at_ms(int ms) { return Time::from_micros(1'000'000 + static_cast<std::int64_t>(ms) * 1000); }

// Sends `count` packets from sequence `first`, one per 16 ms from `ms`; the
// server acknowledges those for which `arrives` says so, as each is sent.
int send(InputRedundancy& r, std::uint16_t first, int count, int ms, const std::function<bool(int)>& arrives) {
  for (int i = 0; i < count; ++i, ms += 16) {
    const Sequence s(static_cast<std::uint16_t>(first + i));
    r.on_sent(s, at_ms(ms));
    if (arrives(i)) r.on_acked(s, at_ms(ms));
  }
  return ms;
}

TEST(InputRedundancy, CleanLinkKeepsTheFloor) {
  InputRedundancy r;
  send(r, 0, 600, 0, [](int) { return true; });
  EXPECT_EQ(r.copies(), r.config().min_copies);
  EXPECT_EQ(r.stats().lost, 0u);
  EXPECT_GT(r.stats().judged, 590u);
}

TEST(InputRedundancy, SingleLossesNeedNoMoreThanTheFloor) {
  InputRedundancy r;
  send(r, 0, 600, 0, [](int i) { return i % 50 != 25; });
  EXPECT_EQ(r.copies(), 3u);
  EXPECT_EQ(r.stats().longest_burst, 1u);
  EXPECT_EQ(r.stats().lost, 12u);
}

TEST(InputRedundancy, ABurstRaisesTheCopiesPastIt) {
  InputRedundancy r;
  // Five packets in a row lost: six copies would carry an input across it,
  // plus the margin.
  send(r, 0, 300, 0, [](int i) { return i < 100 || i >= 105; });
  EXPECT_EQ(r.stats().longest_burst, 5u);
  EXPECT_EQ(r.copies(), 7u);
}

TEST(InputRedundancy, ForgetsABurstAfterTheWindow) {
  InputRedundancyConfig config;
  config.window = Duration::seconds(5);
  InputRedundancy r(config);
  int ms = send(r, 0, 120, 0, [](int i) { return i < 100 || i >= 104; });
  EXPECT_EQ(r.copies(), 6u);
  send(r, 120, 600, ms, [](int) { return true; });
  EXPECT_EQ(r.copies(), config.min_copies);
}

TEST(InputRedundancy, StaysUnderTheCeilingInAnOutage) {
  InputRedundancy r;
  send(r, 0, 300, 0, [](int i) { return i < 100 || i >= 160; });
  EXPECT_EQ(r.copies(), r.config().max_copies);
}

TEST(InputRedundancy, AcknowledgementsOfOtherPacketsSettleEarlierOnes) {
  InputRedundancy r;
  // Input packets 0..9 sent; the server acknowledges a keep-alive numbered
  // 20 but none of the inputs: all ten were lost.
  for (int i = 0; i < 10; ++i) r.on_sent(Sequence(static_cast<std::uint16_t>(i)), at_ms(16 * i));
  r.on_acked(Sequence(20), at_ms(200));
  r.on_sent(Sequence(21), at_ms(216));
  EXPECT_EQ(r.stats().lost, 10u);
  EXPECT_EQ(r.copies(), 12u);
}

TEST(InputRedundancy, AHeadersAcknowledgementsCountWhateverTheirOrder) {
  // A header acknowledges its newest sequence first and the older ones from
  // its bit field after: none of them is lost.
  InputRedundancy r;
  for (int i = 0; i < 10; ++i) r.on_sent(Sequence(static_cast<std::uint16_t>(i)), at_ms(16 * i));
  for (int i = 9; i >= 0; --i) r.on_acked(Sequence(static_cast<std::uint16_t>(i)), at_ms(200));
  r.on_sent(Sequence(10), at_ms(216));
  EXPECT_EQ(r.stats().lost, 0u);
  EXPECT_EQ(r.stats().judged, 10u);
}

TEST(InputRedundancy, ResendsOnlyWhileTheUplinkLoses) {
  InputRedundancy r;
  send(r, 0, 600, 0, [](int) { return true; });
  EXPECT_FALSE(r.resend());
  send(r, 600, 600, 9600, [](int i) { return i % 50 != 25; });  // 2% lost
  EXPECT_TRUE(r.resend());
  EXPECT_NEAR(r.loss_rate(), 0.0125, 0.01);
}

TEST(InputRedundancy, WrapsWithTheSequenceNumbers) {
  InputRedundancy r;
  send(r, 65500, 200, 0, [](int i) { return i < 30 || i >= 33; });
  EXPECT_EQ(r.stats().longest_burst, 3u);
  EXPECT_EQ(r.copies(), 5u);
}

TEST(InputRedundancy, IgnoresUnknownAndRepeatedAcknowledgements) {
  InputRedundancy r;
  send(r, 0, 100, 0, [](int) { return true; });
  const auto before = r.stats().judged;
  r.on_acked(Sequence(40000), at_ms(5000));  // never sent: far ahead, settles what is pending
  r.on_acked(Sequence(50), at_ms(5000));
  EXPECT_GE(r.stats().judged, before);
  EXPECT_EQ(r.stats().lost, 0u);
}

TEST(InputRedundancy, RejectsABadConfig) {
  InputRedundancyConfig bad;
  bad.min_copies = 0;
  EXPECT_THROW(InputRedundancy{bad}, std::invalid_argument);
  bad.min_copies = 4;
  bad.max_copies = 3;
  EXPECT_THROW(InputRedundancy{bad}, std::invalid_argument);
  bad.max_copies = 8;
  bad.window = Duration::zero();
  EXPECT_THROW(InputRedundancy{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::prediction
