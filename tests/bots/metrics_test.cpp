// The run's figures and its pass/fail rules, from made-up bot figures.

#include "metrics.h"

#include <gtest/gtest.h>

#include <vector>

#include "thresholds.h"

namespace tickwire::bots {
namespace {

BotFigures bot(double seconds, double rtt_ms, std::uint64_t scale) {
  BotFigures f;
  f.connected = true;
  f.synced = true;
  f.rtt_ms = rtt_ms;
  f.lead_ms = 50.0;
  f.interpolation_delay_ms = 100.0;
  f.connected_seconds = seconds;
  f.bytes_in = 1000 * scale;
  f.bytes_out = 500 * scale;
  f.snapshots = 30 * scale;
  f.predicted_ticks = 60 * scale;
  f.mispredictions = scale;
  f.late_inputs = scale;
  f.missing_inputs = 2 * scale;
  f.max_rollback_depth = static_cast<std::uint32_t>(scale);
  return f;
}

TEST(BotMetrics, PercentileIsByNearestRank) {
  EXPECT_EQ(percentile({}, 0.5), 0.0);
  EXPECT_EQ(percentile({3, 1, 2}, 0.5), 2.0);
  EXPECT_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99), 10.0);
  EXPECT_EQ(percentile({5, 9}, 1.0), 9.0);
  EXPECT_EQ(percentile({5, 9}, 0.0), 5.0);
}

TEST(BotMetrics, TheSeriesHoldsPerIntervalRatesPerConnectedBot) {
  Recorder recorder;
  const std::vector<BotFigures> first = {bot(1.0, 20.0, 1), bot(1.0, 40.0, 1)};
  recorder.sample(1.0, first);
  const std::vector<BotFigures> second = {bot(2.0, 20.0, 3), bot(2.0, 40.0, 3)};
  recorder.sample(2.0, second);
  ASSERT_EQ(recorder.series().size(), 2U);
  const SeriesPoint& p = recorder.series()[1];
  EXPECT_EQ(p.connected, 2U);
  EXPECT_EQ(p.rtt_p50_ms, 20.0);
  EXPECT_EQ(p.rtt_p99_ms, 40.0);
  EXPECT_DOUBLE_EQ(p.lead_ms, 50.0);
  // Each bot got 2000 bytes in during its second second: 16 kbit/s.
  EXPECT_DOUBLE_EQ(p.kbps_in, 16.0);
  EXPECT_DOUBLE_EQ(p.kbps_out, 8.0);
  // Two mispredictions each in one second: 120 a minute.
  EXPECT_DOUBLE_EQ(p.mispredictions_per_min, 120.0);
  EXPECT_EQ(p.late_inputs, 4U);
}

TEST(BotMetrics, TheSummaryDividesByTimeConnected) {
  Recorder recorder;
  const std::vector<BotFigures> end = {bot(10.0, 30.0, 10), bot(5.0, 50.0, 5)};
  recorder.sample(10.0, end);
  Outcome outcome;
  outcome.bots = 4;
  outcome.connected_ever = 2;
  outcome.disconnects["timeout"] = 1;
  const Summary s = summarize(recorder, end, outcome, 10.0, 60);
  EXPECT_DOUBLE_EQ(s.connected_fraction, 0.5);
  EXPECT_EQ(s.disconnect_count, 1U);
  EXPECT_EQ(s.predicted_ticks, 900U);
  EXPECT_EQ(s.late_inputs, 15U);
  EXPECT_DOUBLE_EQ(s.late_input_fraction, 15.0 / 900.0);
  EXPECT_EQ(s.connected_ticks, 900U);
  EXPECT_DOUBLE_EQ(s.missing_input_fraction, 30.0 / 900.0);
  EXPECT_DOUBLE_EQ(s.mispredictions_per_min, 15.0 * 60.0 / 15.0);
  EXPECT_DOUBLE_EQ(s.kbps_in, 15000.0 * 8.0 / 1000.0 / 15.0);
  EXPECT_DOUBLE_EQ(s.snapshots_per_second, 30.0);
  EXPECT_EQ(s.max_rollback_depth, 10U);
  EXPECT_EQ(s.rtt_max_ms, 50.0);
}

TEST(BotMetrics, WireRatesCountEveryDatagramWithItsHeaders) {
  Recorder recorder;
  std::vector<BotFigures> end = {bot(10.0, 30.0, 10), bot(5.0, 50.0, 5)};
  end[0].wire = {.datagrams_in = 300, .bytes_in = 20000, .datagrams_out = 600, .bytes_out = 9000};
  end[1].wire = {.datagrams_in = 150, .bytes_in = 10000, .datagrams_out = 300, .bytes_out = 4500};
  recorder.sample(10.0, end);
  const Summary s = summarize(recorder, end, Outcome{}, 10.0, 60);
  // 15 s connected in all; 28 bytes of IP and UDP headers per datagram.
  EXPECT_DOUBLE_EQ(s.wire_kbps_in, (30000.0 + 450.0 * 28.0) * 8.0 / 1000.0 / 15.0);
  EXPECT_DOUBLE_EQ(s.wire_kbps_out, (13500.0 + 900.0 * 28.0) * 8.0 / 1000.0 / 15.0);
  // The payload figures stay what the transport was handed.
  EXPECT_DOUBLE_EQ(s.kbps_in, 15000.0 * 8.0 / 1000.0 / 15.0);
}

Summary healthy() {
  Summary s;
  s.connected_fraction = 1.0;
  s.late_input_fraction = 0.001;
  s.mispredictions_per_min = 10.0;
  s.rtt_p99_ms = 80.0;
  return s;
}

TEST(BotThresholds, AHealthyRunPasses) {
  const auto checks = evaluate(healthy(), Thresholds{});
  EXPECT_TRUE(all_passed(checks));
  EXPECT_EQ(checks.size(), 4U) << "rtt is off by default, the sync test only counts when it ran";
}

TEST(BotThresholds, EachRuleFailsOnItsOwnFigure) {
  const auto failed = [](const Summary& s, const Thresholds& t) {
    std::vector<std::string> names;
    for (const ThresholdCheck& c : evaluate(s, t)) {
      if (!c.passed) names.push_back(c.name);
    }
    return names;
  };
  Summary s = healthy();
  s.late_input_fraction = 0.02;
  EXPECT_EQ(failed(s, {}), std::vector<std::string>{"--max-late-inputs"});
  s = healthy();
  s.mispredictions_per_min = 601.0;
  EXPECT_EQ(failed(s, {}), std::vector<std::string>{"--max-mispredictions-per-min"});
  s = healthy();
  s.disconnect_count = 1;
  EXPECT_EQ(failed(s, {}), std::vector<std::string>{"--max-disconnects"});
  Thresholds lenient;
  lenient.max_disconnects = 1;
  EXPECT_TRUE(failed(s, lenient).empty());
  s = healthy();
  s.connected_fraction = 0.9;
  EXPECT_EQ(failed(s, {}), std::vector<std::string>{"--min-connected"});
  Thresholds rtt;
  rtt.max_rtt_p99_ms = 50.0;
  EXPECT_EQ(failed(healthy(), rtt), std::vector<std::string>{"--max-rtt-p99-ms"});
  s = healthy();
  s.sync_checks = 10;
  s.desyncs = 1;
  EXPECT_EQ(failed(s, {}), std::vector<std::string>{"sync-test desyncs"});
}

TEST(BotThresholds, AFailureNamesTheFigureAndTheLimit) {
  Summary s = healthy();
  s.late_input_fraction = 0.25;
  const auto checks = evaluate(s, Thresholds{});
  EXPECT_EQ(checks[0].describe(), "--max-late-inputs: 0.25 > 0.01  FAILED");
  EXPECT_EQ(checks[1].describe(), "--max-mispredictions-per-min: 10 <= 600");
}

TEST(BotMetrics, BotsStillSyncingAreLeftOutOfTheTimeFigures) {
  Recorder r;
  BotFigures syncing = bot(1.0, 0.0, 1);
  syncing.synced = false;
  syncing.lead_ms = 0.0;
  const std::vector<BotFigures> bots{bot(1.0, 40.0, 1), syncing};
  r.sample(1.0, bots);
  ASSERT_EQ(r.series().size(), 1u);
  EXPECT_EQ(r.series()[0].connected, 2u);
  EXPECT_DOUBLE_EQ(r.series()[0].rtt_p50_ms, 40.0);
  EXPECT_DOUBLE_EQ(r.series()[0].lead_ms, 50.0);
}

Duration ms(double v) { return Duration::micros(static_cast<std::int64_t>(v * 1000.0)); }

TEST(BotMargins, EachBotsP50AndP99ComeFromItsOwnMarginsAndTheFleetsFromTheBots) {
  std::vector<BotFigures> bots(3);
  // Bot 0: 1..100 ms, one input each. p50: the 50th smallest, 50 ms; p99:
  // the margin 99 of 100 reach, the smallest, 1 ms.
  for (int i = 1; i <= 100; ++i) bots[0].margins.add(ms(i));
  bots[0].margins_exact = 100;
  bots[0].late_burst_seconds = 1;
  // Bot 1: 198 inputs at 20 ms and 2 late ones at -5 ms (1%): p99 is the
  // 2nd smallest, -5 ms.
  bots[1].margins.add(ms(20), 198);
  bots[1].margins.add(ms(-5), 2);
  bots[1].margins_exact = 150;
  bots[1].late_inputs = 2;
  bots[1].late_burst_seconds = 2;
  // Bot 2 never heard from the server: no margins, left out.
  const MarginSummary m = summarize_margins(bots);
  ASSERT_EQ(m.bots.size(), 3u);
  EXPECT_EQ(m.bots[0].p50_ms, 50.0);
  EXPECT_EQ(m.bots[0].p99_ms, 1.0);
  EXPECT_EQ(m.bots[1].p50_ms, 20.0);
  EXPECT_EQ(m.bots[1].p99_ms, -5.0);
  EXPECT_FALSE(m.bots[2].p50_ms.has_value());
  EXPECT_EQ(m.bots_reported, 2u);
  // The median of {50, 20} by nearest rank, and the worst p99.
  EXPECT_EQ(m.p50_ms, 20.0);
  EXPECT_EQ(m.p99_ms, -5.0);
  EXPECT_EQ(m.inputs, 300u);
  EXPECT_DOUBLE_EQ(m.exact_fraction, 250.0 / 300.0);
  EXPECT_EQ(m.late_burst_seconds, 3u);
  EXPECT_EQ(m.late_burst_seconds_max, 2u);

  // With 3 late of 200, p99 moves no further: still the 2nd smallest.
  bots[1].margins.add(ms(-9));
  EXPECT_EQ(summarize_margins(bots).bots[1].p99_ms, -5.0);
}

TEST(BotMargins, TheSeriesPoolsTheMarginsOfEachInterval) {
  Recorder recorder;
  std::vector<BotFigures> bots(2, bot(1.0, 20.0, 1));
  bots[0].margins.add(ms(30), 60);
  bots[1].margins.add(ms(10), 60);
  recorder.sample(1.0, bots);
  // Second interval: only bot 1 adds, 99 at 12 ms and one at -2 ms, and
  // closes a late-burst second.
  bots[1].margins.add(ms(12), 99);
  bots[1].margins.add(ms(-2));
  bots[1].late_burst_seconds = 1;
  recorder.sample(2.0, bots);
  // Third: nothing new.
  recorder.sample(3.0, bots);
  ASSERT_EQ(recorder.series().size(), 3u);
  const SeriesPoint& first = recorder.series()[0];
  EXPECT_EQ(first.margins, 120u);
  EXPECT_EQ(first.margin_p50_ms, 10.0);
  EXPECT_EQ(first.margin_p99_ms, 10.0);
  const SeriesPoint& second = recorder.series()[1];
  EXPECT_EQ(second.margins, 100u);
  EXPECT_EQ(second.margin_p50_ms, 12.0);
  EXPECT_EQ(second.margin_p99_ms, -2.0);
  EXPECT_EQ(second.late_burst_bots, 1u);
  EXPECT_EQ(recorder.series()[2].margins, 0u);
  EXPECT_FALSE(recorder.series()[2].margin_p50_ms.has_value());
  EXPECT_EQ(recorder.series()[2].late_burst_bots, 0u);
}

TEST(BotMargins, ABotsMarginsAddUpOverItsClients) {
  BotFigures retired;
  retired.margins.add(ms(5), 10);
  retired.late_burst_seconds = 2;
  BotFigures current;
  current.margins.add(ms(7), 30);
  current.late_burst_seconds = 1;
  add_counters(current, retired);
  EXPECT_EQ(current.margins.count(), 40u);
  EXPECT_EQ(current.late_burst_seconds, 3u);
  EXPECT_EQ(margin_p99_ms(current.margins), 5.0);
}

TEST(BotThresholds, TheMarginRulesAreOffUnlessGivenAndFailOnTheirFigure) {
  Summary s = healthy();
  s.margins.late_burst_seconds = 4;
  s.margins.p99_ms = 2.5;
  EXPECT_EQ(evaluate(s, Thresholds{}).size(), 4u);
  Thresholds t;
  t.max_late_burst_seconds = 3;
  t.min_input_margin_p99_ms = 3.0;
  std::vector<std::string> failed;
  for (const ThresholdCheck& c : evaluate(s, t)) {
    if (!c.passed) failed.push_back(c.name);
  }
  EXPECT_EQ(failed, (std::vector<std::string>{"--max-late-burst-seconds", "--min-input-margin-p99-ms"}));
  t.max_late_burst_seconds = 4;
  t.min_input_margin_p99_ms = 2.5;
  EXPECT_TRUE(all_passed(evaluate(s, t)));
  // A run in which no margin came proves nothing.
  s.margins.p99_ms.reset();
  EXPECT_FALSE(all_passed(evaluate(s, t)));
}

}  // namespace
}  // namespace tickwire::bots
