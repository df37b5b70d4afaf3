// The scale benchmark's arithmetic over the server's stats lines: what a
// step reports must follow from the lines, whatever the link did to the
// packets.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "figures.h"

namespace tickwire::bench {
namespace {

// Ten seconds of `clients` bots at 60 Hz, the bots' processes using
// `bots_cpu_us` in all and the server hearing `packets_per_frame` packets a
// bot-frame, `missing` inputs not there in time and `late` of them after.
std::vector<Sample> window(double clients, double packets_per_frame, double bots_cpu_us, double missing = 0,
                           double late = 0) {
  std::vector<Sample> out;
  for (int s = 0; s <= 10; ++s) {
    Sample x;
    x.line.t = s;
    x.line.tick = 60.0 * s;
    x.line.clients = clients;
    x.line.packets_in = clients * 60.0 * s * packets_per_frame;
    x.line.missing_inputs = missing * s / 10.0;
    x.line.late_inputs = late * s / 10.0;
    x.server_cpu_us = 1000.0 * s;
    x.bots_cpu_us = bots_cpu_us * s / 10.0;
    x.wall_s = s;
    out.push_back(x);
  }
  return out;
}

// A stats line with every field the benchmark needs, then `optional` ones.
std::string stats_line(const std::string& optional) {
  return R"({"t":1,"tick":60,"clients":2,"tick_us_p50":1,"tick_us_p99":2,"tick_us_max":3,"ticks_overrun":0,)"
         R"("ticks_skipped":0,"packets_in":120,"kbps_in":1,"kbps_out":2,"late_inputs":0,"missing_inputs":0,)"
         R"("disconnects":0)" +
         optional + "}";
}

StepFigures figures_of(const std::vector<Sample>& w) {
  const Sample baseline = w.front();
  return compute_figures(static_cast<int>(w.front().line.clients), {w.begin() + 1, w.end()}, baseline, Targets{});
}

TEST(ServerScaleFigures, BotCpuIsPerFrameWhenEveryFrameSendsOnePacket) {
  // 10 bots, 600 frames each: 6,000 frames for 60,000 us.
  const StepFigures f = figures_of(window(10, 1.0, 60'000));
  ASSERT_TRUE(f.error.empty()) << f.error;
  EXPECT_NEAR(f.bots_cpu_us_per_bot_frame, 10.0, 1e-9);
  EXPECT_NEAR(f.packets_in_per_client_s, 60.0, 1e-9);
}

TEST(ServerScaleFigures, ALossyUplinksSecondSendingIsNotAFrame) {
  // The input redundancy sends each frame's packet twice over a lossy
  // uplink: twice the packets, the same frames and the same CPU per frame.
  const StepFigures f = figures_of(window(10, 2.0, 60'000));
  EXPECT_NEAR(f.bots_cpu_us_per_bot_frame, 10.0, 1e-9);
  EXPECT_NEAR(f.packets_in_per_client_s, 120.0, 1e-9);
}

TEST(ServerScaleFigures, InputsThatNeverCameAreFramesNotRun) {
  // A lagging load generator: 1,200 of the 6,000 inputs never came and
  // 200 came late, so the bots ran 5,000 frames.
  const StepFigures f = figures_of(window(10, 0.2, 50'000, 1200, 200));
  EXPECT_NEAR(f.bots_cpu_us_per_bot_frame, 10.0, 1e-9);
  EXPECT_NEAR(f.late_input_rate, 0.2, 1e-9);
}

TEST(ServerScaleFigures, ViewsArePerClientAndTheSpanIsTheWindowsLongest) {
  std::vector<Sample> w = window(10, 1.0, 60'000);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i].line.views_held = i % 2 == 0 ? 100.0 : 300.0;  // 10 and 30 a client
    w[i].line.longest_reference_span = i == 4 ? 16.0 : 3.0;
  }
  const StepFigures f = figures_of(w);
  // The window's ten lines after the baseline, five of each.
  EXPECT_NEAR(f.views_per_client, 20.0, 1e-9);
  EXPECT_NEAR(f.longest_reference_span, 16.0, 1e-9);
}

TEST(ServerScaleFigures, ViewsAndSpanAreOptionalInAStatsLine) {
  const auto line = parse_stats_line(stats_line(""));
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->views_held, 0.0);
  const auto with = parse_stats_line(stats_line(R"(,"views_held":18,"longest_reference_span":5)"));
  ASSERT_TRUE(with.has_value());
  EXPECT_EQ(with->views_held, 18.0);
  EXPECT_EQ(with->longest_reference_span, 5.0);
}

TEST(ServerScaleFigures, MemoryPerClientIsAboveTheIdleServers) {
  std::vector<Sample> w = window(10, 1.0, 60'000);
  for (Sample& s : w) {
    s.line.rss_kb = 15'000;
    s.line.heap_kb = 9'000;
  }
  const Sample baseline = w.front();
  const std::vector<Sample> after(w.begin() + 1, w.end());
  // 10 clients: 3,000 KB of resident set and 2,000 of heap above idle.
  const StepFigures f = compute_figures(10, after, baseline, Targets{}, IdleMemory{12'000, 7'000});
  EXPECT_NEAR(f.rss_kb_per_client, 300.0, 1e-9);
  EXPECT_NEAR(f.heap_kb_per_client, 200.0, 1e-9);
  // A server that reports no heap: the heap figure is unknown, the
  // resident set's is not.
  const StepFigures no_heap = compute_figures(10, after, baseline, Targets{}, IdleMemory{12'000, 0});
  EXPECT_NEAR(no_heap.rss_kb_per_client, 300.0, 1e-9);
  EXPECT_EQ(no_heap.heap_kb_per_client, -1.0);
  // Without the idle figures neither is known.
  const StepFigures unknown = compute_figures(10, after, baseline, Targets{});
  EXPECT_EQ(unknown.rss_kb_per_client, -1.0);
  EXPECT_EQ(unknown.heap_kb_per_client, -1.0);
}

TEST(ServerScaleFigures, HeapIsOptionalInAStatsLine) {
  const auto line = parse_stats_line(stats_line(R"(,"rss_kb":15000,"heap_kb":9000)"));
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->rss_kb, 15000.0);
  EXPECT_EQ(line->heap_kb, 9000.0);
}

}  // namespace
}  // namespace tickwire::bench
