#include "stats_format.h"

#include <gtest/gtest.h>

#include <numeric>

namespace tickwire::host {
namespace {

TEST(Percentile, EmptyIsZero) {
  std::vector<std::int64_t> v;
  EXPECT_EQ(percentile(v, 0.5), 0);
  EXPECT_EQ(percentile(v, 1.0), 0);
}

TEST(Percentile, SingleValueIsEveryPercentile) {
  std::vector<std::int64_t> v{42};
  EXPECT_EQ(percentile(v, 0.0), 42);
  EXPECT_EQ(percentile(v, 0.5), 42);
  EXPECT_EQ(percentile(v, 0.99), 42);
}

TEST(Percentile, NearestRankOnOneToHundred) {
  std::vector<std::int64_t> v(100);
  std::iota(v.rbegin(), v.rend(), 1);  // 100..1, unsorted on purpose
  EXPECT_EQ(percentile(v, 0.5), 50);
  EXPECT_EQ(percentile(v, 0.99), 99);
  EXPECT_EQ(percentile(v, 1.0), 100);
  EXPECT_EQ(percentile(v, 0.0), 1);
}

TEST(Percentile, P99OfFewValuesIsTheMaximum) {
  // One slow tick among a few must show, not be averaged away.
  std::vector<std::int64_t> v{10, 12, 11, 900, 10};
  EXPECT_EQ(percentile(v, 0.99), 900);
  EXPECT_EQ(percentile(v, 0.5), 11);
}

TEST(Percentile, OutOfRangePIsClamped) {
  std::vector<std::int64_t> v{3, 1, 2};
  EXPECT_EQ(percentile(v, -1.0), 1);
  EXPECT_EQ(percentile(v, 2.0), 3);
}

IntervalStats sample() {
  IntervalStats s;
  s.t = 5.0004;
  s.tick = 300;
  s.clients = 6;
  s.tick_us_p50 = 40;
  s.tick_us_p99 = 90;
  s.tick_us_max = 120;
  s.late_start_us_p99 = 70;
  s.late_start_us_max = 300;
  s.ticks_overrun = {2, 1};
  s.bytes_in = {1000, 500};
  s.bytes_out = {8000, 4000};
  s.packets_in = {20, 10};
  s.packets_out = {40, 20};
  s.kbps_in = 4.0;
  s.kbps_out = 32.04;
  s.wire_kbps_in = 9.5;
  s.wire_kbps_out = 41.26;
  s.snapshots = {40, 20};
  s.late_inputs = {3, 0};
  s.missing_inputs = {5, 2};
  s.rejected_inputs = {1, 1};
  s.bad_packets = {7, 0};
  s.rss_kb = 5120;
  s.heap_kb = 3072;
  s.unvalidated_bytes_in = 6400;
  s.unvalidated_bytes_out = 2900;
  s.connects_dropped = 50;
  s.bad_cookies = 4;
  s.receive_us = 11;
  s.simulate_us = 22;
  s.relevancy_us = 33;
  s.encode_us = 44;
  s.send_us = 55;
  s.views_held = 260;
  s.longest_reference_span = 3;
  s.dropped_unsealed = 61;
  s.dropped_unknown_connection = 62;
  s.dropped_wrong_source = 63;
  s.dropped_failed_to_verify = 64;
  s.dropped_replayed = 65;
  s.dropped_foreign_slot = 66;
  s.game = "my \"game\"";
  s.game_version = "1.0";
  return s;
}

TEST(JsonLine, HasEveryKeyWithTotalsOnOneLine) {
  const std::string line = format_json_line(sample());
  EXPECT_EQ(line.front(), '{');
  EXPECT_EQ(line.substr(line.size() - 2), "}\n");
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  for (const char* kv : {"\"t\":5.000",
                         "\"tick\":300",
                         "\"clients\":6",
                         "\"tick_us_p50\":40",
                         "\"tick_us_p99\":90",
                         "\"tick_us_max\":120",
                         "\"late_start_us_p99\":70",
                         "\"late_start_us_max\":300",
                         "\"ticks_overrun\":2",
                         "\"ticks_skipped\":0",
                         "\"bytes_in\":1000",
                         "\"bytes_out\":8000",
                         "\"packets_in\":20",
                         "\"packets_out\":40",
                         "\"kbps_in\":4.0",
                         "\"kbps_out\":32.0",
                         "\"wire_kbps_in\":9.5",
                         "\"wire_kbps_out\":41.3",
                         "\"snapshots\":40",
                         "\"late_inputs\":3",
                         "\"missing_inputs\":5",
                         "\"rejected_inputs\":1",
                         "\"bad_packets\":7",
                         "\"rss_kb\":5120",
                         "\"heap_kb\":3072",
                         "\"unvalidated_bytes_in\":6400",
                         "\"unvalidated_bytes_out\":2900",
                         "\"connects_dropped\":50",
                         "\"bad_cookies\":4",
                         "\"receive_us\":11",
                         "\"simulate_us\":22",
                         "\"relevancy_us\":33",
                         "\"encode_us\":44",
                         "\"send_us\":55",
                         "\"views_held\":260",
                         "\"longest_reference_span\":3",
                         "\"dropped_unsealed\":61",
                         "\"dropped_unknown_connection\":62",
                         "\"dropped_wrong_source\":63",
                         "\"dropped_failed_to_verify\":64",
                         "\"dropped_replayed\":65",
                         "\"dropped_foreign_slot\":66",
                         "\"game\":\"my \\\"game\\\"\"",
                         "\"game_version\":\"1.0\""}) {
    EXPECT_NE(line.find(kv), std::string::npos) << kv << " in " << line;
  }
}

TEST(TextLine, IsOneLineWithDeltasAndTotals) {
  const std::string line = format_text_line(sample());
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("clients=6"), std::string::npos) << line;
  EXPECT_NE(line.find("p99=90"), std::string::npos) << line;
  EXPECT_NE(line.find("overrun=+1/2"), std::string::npos) << line;
  EXPECT_NE(line.find("missing=+2/5"), std::string::npos) << line;
  EXPECT_NE(line.find("heap=3072KiB"), std::string::npos) << line;
  EXPECT_NE(line.find("unopened=381"), std::string::npos) << line;
}

TEST(Statm, ResidentPagesToKiB) {
  EXPECT_EQ(rss_kb_from_statm("2000 1280 300 10 0 500 0\n", 4096), 5120U);
  EXPECT_FALSE(rss_kb_from_statm("", 4096).has_value());
  EXPECT_FALSE(rss_kb_from_statm("2000 x", 4096).has_value());
}

}  // namespace
}  // namespace tickwire::host
