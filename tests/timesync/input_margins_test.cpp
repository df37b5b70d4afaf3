// The client's figures of how early its inputs reach the server: the
// margin histogram, the reports it is fed, and the late-burst seconds.
#include "tickwire/timesync/input_margins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "tickwire/timesync/client_measurements.h"

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;

Duration ms(double v) { return Duration::micros(std::llround(v * 1000.0)); }
Time at_s(double s) { return Time::from_micros(std::llround(s * 1e6)); }

InputFeedback::Lead report(std::int32_t worst, std::uint16_t inputs, std::array<std::int32_t, 3> spreads) {
  InputFeedback::Lead lead{Tick(100), worst};
  lead.inputs = inputs;
  lead.spreads = spreads;
  return lead;
}

TEST(MarginHistogram, QuantilesMatchNearestRankOfTheSamples) {
  // Random margins, in and out of range, through add, since and merge:
  // every quantile is the lower edge of the bin of the nearest-rank sample.
  const std::uint64_t seed = std::random_device{}();
  std::cout << "[   SEED   ] " << seed << std::endl;
  std::mt19937_64 rng(seed);
  auto edge = [](std::int64_t us) {
    if (us < MarginHistogram::kMinMicros) return MarginHistogram::kMinMicros;
    if (us >= MarginHistogram::kMaxMicros) return MarginHistogram::kMaxMicros;
    return MarginHistogram::kMinMicros +
           (us - MarginHistogram::kMinMicros) / MarginHistogram::kBinMicros * MarginHistogram::kBinMicros;
  };
  for (int round = 0; round < 20; ++round) {
    MarginHistogram first;
    MarginHistogram second;
    std::vector<std::int64_t> samples;
    const int n = 1 + static_cast<int>(rng() % 3000);
    const std::int64_t spread = 1000 + static_cast<std::int64_t>(rng() % 1'200'000);
    const std::int64_t centre = static_cast<std::int64_t>(rng() % 1'000'000) - 250'000;
    for (int i = 0; i < n; ++i) {
      const std::int64_t us =
          centre + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(spread)) - spread / 2;
      samples.push_back(us);
      (i % 2 == 0 ? first : second).add(Duration::micros(us));
    }
    const MarginHistogram copy = first;
    first.add(Duration::micros(0), 5);
    MarginHistogram h = first.since(copy);  // the five zeros alone
    ASSERT_EQ(h.count(), 5u);
    ASSERT_EQ(h.quantile(0.5), Duration::zero());
    h = copy;
    h.merge(second);
    ASSERT_EQ(h.count(), samples.size());
    std::sort(samples.begin(), samples.end());
    for (double q : {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0}) {
      const double wanted = std::ceil(q * static_cast<double>(samples.size()));
      const auto rank = std::max<std::size_t>(1, static_cast<std::size_t>(wanted));
      ASSERT_EQ(h.quantile(q), Duration::micros(edge(samples[rank - 1]))) << "round " << round << " q " << q;
    }
  }
}

TEST(MarginHistogram, QuantilesByNearestRankAtTheLowerEdgeOfTheirBin) {
  MarginHistogram h;
  EXPECT_FALSE(h.quantile(0.5).has_value());
  // 1..100 ms, one each.
  for (int i = 1; i <= 100; ++i) h.add(ms(i + 0.2));
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.quantile(0.50), ms(50));  // the 50th smallest, 50.2 ms, in the bin [50, 50.5)
  EXPECT_EQ(h.quantile(0.01), ms(1));   // the low tail: 99 of 100 are above it
  EXPECT_EQ(h.quantile(0.0), ms(1));
  EXPECT_EQ(h.quantile(1.0), ms(100));
}

TEST(MarginHistogram, SaturatesOutsideItsRangeAndCountsWhatFell) {
  MarginHistogram h;
  h.add(ms(-900));
  h.add(ms(5000), 2);
  h.add(ms(-3.7));
  EXPECT_EQ(h.below_range(), 1u);
  EXPECT_EQ(h.above_range(), 2u);
  EXPECT_EQ(h.quantile(0.0), Duration::micros(MarginHistogram::kMinMicros));
  EXPECT_EQ(h.quantile(0.5), ms(-4.0));  // -3.7 ms lies in [-4.0, -3.5)
  EXPECT_EQ(h.quantile(1.0), Duration::micros(MarginHistogram::kMaxMicros));
}

TEST(MarginHistogram, MergesAndDifferencesCumulativeCopies) {
  MarginHistogram a;
  a.add(ms(10), 3);
  const MarginHistogram before = a;
  a.add(ms(20), 2);
  a.add(ms(10));
  const MarginHistogram delta = a.since(before);
  EXPECT_EQ(delta.count(), 3u);
  EXPECT_EQ(delta.quantile(0.0), ms(10));
  EXPECT_EQ(delta.quantile(0.5), ms(20));
  MarginHistogram total;
  total.merge(before);
  total.merge(delta);
  EXPECT_EQ(total, a);
  EXPECT_EQ(MarginHistogram{}.since(a).count(), 0u);
}

TEST(InputMarginMonitor, KnowsEveryMarginOfAReportOfUpToFourInputs) {
  InputMarginMonitor m(kRate);
  // 256 units are a tick, 16.667 ms at 60 Hz.
  m.on_report(report(256, 1, {}));
  m.on_report(report(128, 2, {384, 0, 0}));    // 8.33 ms and 33.33 ms
  m.on_report(report(-64, 4, {96, 64, 320}));  // -4.17, 2.08, 0, 16.67 ms
  EXPECT_EQ(m.histogram().count(), 7u);
  EXPECT_EQ(m.exact(), 7u);
  EXPECT_EQ(m.histogram().quantile(0.0), ms(-4.5));
  EXPECT_EQ(m.histogram().quantile(2.0 / 7.0), ms(0.0));
  EXPECT_EQ(m.histogram().quantile(3.0 / 7.0), ms(2.0));
  EXPECT_EQ(m.histogram().quantile(4.0 / 7.0), ms(8.0));
  EXPECT_EQ(m.histogram().quantile(5.0 / 7.0), ms(16.5));
  EXPECT_EQ(m.histogram().quantile(1.0), ms(33.0));
}

TEST(InputMarginMonitor, TakesTheInputsBetweenTheWorstAndTheBestOfALargerReportAtTheWorst) {
  InputMarginMonitor m(kRate);
  m.on_report(report(-64, 6, {320, 0, 0}));  // -4.17 ms worst, 16.67 ms best, four unknown
  EXPECT_EQ(m.histogram().count(), 6u);
  EXPECT_EQ(m.exact(), 2u);
  // Five of six at the worst: every quantile up to 5/6 is the worst.
  EXPECT_EQ(m.histogram().quantile(5.0 / 6.0), ms(-4.5));
  EXPECT_EQ(m.histogram().quantile(1.0), ms(16.5));
}

TEST(InputMarginMonitor, ASecondIsALateBurstWhenOverOnePercentOfItsInputsWereLate) {
  InputMarginMonitor m(kRate);
  // Second 0: 60 inputs, none late. Second 1: 60 inputs, one late (1.7%).
  // Second 2: 200 inputs, 2 late (1%, not over). Second 3: nothing sent,
  // one late report.
  for (int i = 0; i < 60; ++i) m.on_input_sent(at_s(10.0 + i / 60.0));
  for (int i = 0; i < 60; ++i) m.on_input_sent(at_s(11.0 + i / 60.0));
  m.on_late(1, at_s(11.5));
  for (int i = 0; i < 200; ++i) m.on_input_sent(at_s(12.0 + i / 200.0));
  m.on_late(2, at_s(12.9));
  m.on_late(1, at_s(13.2));
  m.advance(at_s(14.0));
  EXPECT_EQ(m.seconds(), 4u);
  EXPECT_EQ(m.late_burst_seconds(), 2u);
  EXPECT_EQ(m.late(), 4u);
  EXPECT_EQ(m.late_last_second(), 1u);
  EXPECT_EQ(m.inputs_last_second(), 0u);
  // Quiet seconds close as whole seconds without a burst.
  m.advance(at_s(20.5));
  EXPECT_EQ(m.seconds(), 10u);
  EXPECT_EQ(m.late_burst_seconds(), 2u);
  EXPECT_EQ(m.late_last_second(), 0u);
}

TEST(InputMarginMonitor, TheBurstShareIsConfigurable) {
  InputMarginMonitor strict(kRate, {0.0});
  InputMarginMonitor loose(kRate, {0.05});
  for (InputMarginMonitor* m : {&strict, &loose}) {
    for (int i = 0; i < 60; ++i) m->on_input_sent(at_s(i / 60.0));
    m->on_late(2, at_s(0.5));  // 3.3%
    m->advance(at_s(1.0));
  }
  EXPECT_EQ(strict.late_burst_seconds(), 1u);
  EXPECT_EQ(loose.late_burst_seconds(), 0u);
  EXPECT_THROW(InputMarginMonitor(kRate, {1.5}), std::invalid_argument);
  EXPECT_THROW(InputMarginMonitor(0), std::invalid_argument);
}

TEST(InputMarginMonitor, ClientMeasurementsFeedItOnlyReportsAboutInputsItSent) {
  ClientMeasurements m(kRate);
  m.on_predicted_tick(Tick(100), at_s(1.0), Duration::zero(), false);
  InputFeedback f;
  f.lead = report(512, 2, {256, 0, 0});  // about tick 100: ours
  const Time received = at_s(1.1);
  m.on_snapshot(SnapshotReceipt{received, SnapshotTiming{Tick(90), 0}, std::nullopt, f});
  f.lead->input_tick = Tick(5000);  // never sent
  m.on_snapshot(SnapshotReceipt{received, SnapshotTiming{Tick(91), 0}, std::nullopt, f});
  EXPECT_EQ(m.input_margins().histogram().count(), 2u);
  EXPECT_EQ(m.input_margins().histogram().quantile(1.0), ms(50.0));
}

TEST(InputMarginMonitor, ClientMeasurementsCountLateInputsFromTheRunningTotals) {
  ClientMeasurements m(kRate);
  InputFeedback f;
  f.late_total = 7;  // the first report is the base
  m.on_snapshot(SnapshotReceipt{at_s(1.0), SnapshotTiming{Tick(60), 0}, std::nullopt, f});
  f.late_total = 10;
  m.on_snapshot(SnapshotReceipt{at_s(1.5), SnapshotTiming{Tick(90), 0}, std::nullopt, f});
  m.on_frame(at_s(2.2));
  EXPECT_EQ(m.input_margins().late(), 3u);
  EXPECT_EQ(m.input_margins().late_last_second(), 3u);
  EXPECT_EQ(m.input_margins().late_burst_seconds(), 1u);
}

}  // namespace
}  // namespace tickwire::timesync
