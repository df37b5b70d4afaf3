// The viewer's net graph: levels read as they stand, rates from the change
// of the client's counters over each interval, totals that add up to the
// counters, and a ring that keeps the last 10 s oldest first.
#include "net_graph.h"

#include <gtest/gtest.h>

namespace tickwire::viewer {
namespace {

struct Feed {
  client::ClientStats stats;
  transport::WireStats wire;
  std::uint64_t replayed = 0;
  Time now;
  double predicted = 0.0;

  GraphReading reading() {
    GraphReading r;
    r.now = now;
    r.stats = &stats;
    r.replayed_ticks = replayed;
    r.wire = wire;
    r.predicted_seconds = predicted;
    r.target_lead = Duration::millis(40);
    return r;
  }
  // Moves time on by `ms`, the predicted time by `ms * scale`.
  void advance(int ms, double scale = 1.0) {
    now = now + Duration::millis(ms);
    predicted += ms * 1e-3 * scale;
  }
};

TEST(NetGraph, FirstReadingIsTheBaselineAndSamplesWaitForTheInterval) {
  NetGraph g;
  Feed f;
  EXPECT_FALSE(g.observe(f.reading()));  // nothing to take a change from yet
  f.advance(50);
  EXPECT_FALSE(g.observe(f.reading()));
  f.advance(50);
  EXPECT_TRUE(g.observe(f.reading()));
  EXPECT_EQ(g.count(), 1U);
  EXPECT_EQ(g.samples_taken(), 1U);
}

TEST(NetGraph, LevelsAreTheClientsAndRatesAreChangesOverTheInterval) {
  NetGraph g;
  Feed f;
  g.observe(f.reading());
  f.advance(200, 1.05);
  f.stats.rtt = Duration::millis(42);
  f.stats.lead = Duration::millis(55);
  f.stats.loss = 0.025;
  f.stats.snapshots = 6;         // 30 per second over 200 ms
  f.stats.bytes_in = 1000;       // 40 kbit/s
  f.wire.bytes_received = 1250;  // 50 kbit/s with the headers
  f.wire.bytes_sent = 500;
  f.stats.rollbacks = 2;
  f.replayed = 7;  // 3.5 ticks per rollback
  f.stats.mispredictions = 1;
  f.stats.hard_resets = 1;
  ASSERT_TRUE(g.observe(f.reading()));
  EXPECT_FLOAT_EQ(g.latest(Series::kRttMs), 42.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kLeadMs), 55.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kTargetLeadMs), 40.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kLossPercent), 2.5F);
  EXPECT_FLOAT_EQ(g.latest(Series::kSnapshotsPerSecond), 30.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kPayloadInKbps), 40.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kWireInKbps), 50.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kWireOutKbps), 20.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kRollbacksPerSecond), 10.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kRollbackDepth), 3.5F);
  EXPECT_FLOAT_EQ(g.latest(Series::kMispredictionsPerSecond), 5.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kHardResets), 1.0F);
  EXPECT_NEAR(g.latest(Series::kTimeScale), 1.05F, 1e-4F);
  // An interval without change plots zero rates, the levels stay.
  f.advance(100);
  ASSERT_TRUE(g.observe(f.reading()));
  EXPECT_FLOAT_EQ(g.latest(Series::kSnapshotsPerSecond), 0.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kRollbackDepth), 0.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kRttMs), 42.0F);
}

TEST(NetGraph, TotalsAddUpToTheClientsCounters) {
  NetGraph g;
  Feed f;
  g.observe(f.reading());
  for (int i = 1; i <= 250; ++i) {
    f.advance(40);  // samples every third reading or so: changes between samples must not be lost
    f.stats.mispredictions += static_cast<std::uint64_t>(i % 3);
    f.stats.rollbacks += static_cast<std::uint64_t>(i % 4);
    f.stats.late_inputs += static_cast<std::uint64_t>(i % 7 == 0);
    f.stats.missing_inputs += static_cast<std::uint64_t>(i % 11 == 0);
    f.stats.snapshots += 1;
    f.stats.bytes_in += 100;
    g.observe(f.reading());
  }
  const auto& t = g.totals();
  const client::ClientStats& at = g.stats_at_latest();
  EXPECT_EQ(t.mispredictions, at.mispredictions);
  EXPECT_EQ(t.rollbacks, at.rollbacks);
  EXPECT_EQ(t.late_inputs, at.late_inputs);
  EXPECT_EQ(t.missing_inputs, at.missing_inputs);
  EXPECT_EQ(t.snapshots, at.snapshots);
  EXPECT_EQ(t.payload_bytes_in, at.bytes_in);
  // The last readings since the newest sample are not in it yet.
  EXPECT_LE(f.stats.snapshots - at.snapshots, 2U);
}

TEST(NetGraph, KeepsTheLastTenSecondsOldestFirst) {
  NetGraph g;
  Feed f;
  g.observe(f.reading());
  for (int i = 1; i <= 130; ++i) {
    f.advance(100);
    f.stats.rtt = Duration::millis(i);
    g.observe(f.reading());
  }
  ASSERT_EQ(g.count(), NetGraph::kSamples);
  const float* rtt = g.values(Series::kRttMs);
  // Oldest first from offset(), wrapping: samples 31..130.
  EXPECT_FLOAT_EQ(rtt[g.offset()], 31.0F);
  EXPECT_FLOAT_EQ(rtt[(g.offset() + NetGraph::kSamples - 1) % NetGraph::kSamples], 130.0F);
  EXPECT_FLOAT_EQ(g.latest(Series::kRttMs), 130.0F);
}

TEST(NetGraph, ANewSessionsCountersStartFromZero) {
  NetGraph g;
  Feed f;
  f.stats.snapshots = 500;
  g.observe(f.reading());
  f.advance(100);
  f.stats.snapshots = 3;  // reconnected: the client's counters began again
  ASSERT_TRUE(g.observe(f.reading()));
  EXPECT_FLOAT_EQ(g.latest(Series::kSnapshotsPerSecond), 30.0F);
  EXPECT_EQ(g.totals().snapshots, 3U);
}

TEST(NetGraph, EverySeriesHasANameAndAKey) {
  for (std::size_t i = 0; i < kSeriesCount; ++i) {
    const auto s = static_cast<Series>(i);
    EXPECT_NE(std::string(series_name(s)), "");
    EXPECT_NE(std::string(series_key(s)), "");
  }
}

}  // namespace
}  // namespace tickwire::viewer
