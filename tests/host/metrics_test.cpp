#include "metrics.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tickwire::host {
namespace {

using server::ServerEvent;
using transport::DisconnectReason;

// The value of one series in the exposition text, or -1 when absent.
double value_of(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return -1;
}

TEST(Metrics, EveryNameIsPrefixedAndLabelledSeriesStartAtZero) {
  Metrics m(StartInfo{"s", "9.9.9", "mygame", "2.0", "", 60, 30, 64, false});
  const auto text = m.render();
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_EQ(line.rfind("tickwire_", 0), 0U) << line;
  }
  EXPECT_EQ(value_of(text, R"(tickwire_build_info{game="mygame",game_version="2.0",version="9.9.9"})"), 1.0);
  EXPECT_EQ(value_of(text, "tickwire_max_clients"), 64.0);
  EXPECT_NEAR(value_of(text, "tickwire_tick_budget_seconds"), 1.0 / 60.0, 1e-12);
  EXPECT_EQ(value_of(text, R"(tickwire_bad_packets_total{reason="truncated"})"), 0.0);
  EXPECT_EQ(value_of(text, R"(tickwire_connection_events_total{event="denied",reason="server_full"})"), 0.0);
  EXPECT_EQ(value_of(text, "tickwire_client_reported_mispredictions_total"), 0.0);
}

TEST(Metrics, CountersAdvanceByWhatTheTotalsGained) {
  Metrics m(StartInfo{"s", "1", "g", "1", "", 60, 30, 8, false});
  server::ServerStats s;
  s.clients = 2;
  s.ticks_run = 10;
  s.bytes_in = 100;
  s.bytes_out = 1000;
  s.packets_in = 3;
  s.packets_out = 4;
  s.late_inputs = 1;
  s.missing_inputs = 2;
  s.bad_packets_by_reason[static_cast<std::size_t>(ErrorCode::kMalformed)] = 5;
  m.update(s);
  s.ticks_run = 25;
  s.bytes_out = 1500;
  s.clients = 1;
  m.update(s);
  m.update(s);  // no change, no double counting
  const auto text = m.render();
  EXPECT_EQ(value_of(text, "tickwire_clients"), 1.0);
  EXPECT_EQ(value_of(text, "tickwire_ticks_total"), 25.0);
  EXPECT_EQ(value_of(text, "tickwire_bytes_in_total"), 100.0);
  EXPECT_EQ(value_of(text, "tickwire_bytes_out_total"), 1500.0);
  EXPECT_EQ(value_of(text, "tickwire_packets_in_total"), 3.0);
  EXPECT_EQ(value_of(text, "tickwire_packets_out_total"), 4.0);
  EXPECT_EQ(value_of(text, "tickwire_late_inputs_total"), 1.0);
  EXPECT_EQ(value_of(text, "tickwire_missing_inputs_total"), 2.0);
  EXPECT_EQ(value_of(text, R"(tickwire_bad_packets_total{reason="malformed"})"), 5.0);
}

TEST(Metrics, TickDurationsLandInBucketsWithTheBudgetAsABound) {
  Metrics m(StartInfo{"s", "1", "g", "1", "", 60, 30, 8, false});
  m.observe_ticks(
      {{Tick(1), Duration::micros(10), Duration::micros(300)}, {Tick(2), Duration::micros(0), Duration::millis(20)}});
  const auto text = m.render();
  EXPECT_EQ(value_of(text, "tickwire_tick_duration_seconds_count"), 2.0);
  EXPECT_EQ(value_of(text, R"(tickwire_tick_duration_seconds_bucket{le="0.0005"})"), 1.0);
  EXPECT_EQ(value_of(text, R"(tickwire_tick_duration_seconds_bucket{le="0.01666666666666667"})"), 1.0) << text;
  EXPECT_EQ(value_of(text, R"(tickwire_tick_duration_seconds_bucket{le="+Inf"})"), 2.0);
  EXPECT_EQ(value_of(text, "tickwire_tick_lateness_seconds_count"), 2.0);
}

TEST(Metrics, ConnectionEventsByReason) {
  Metrics m(StartInfo{"s", "1", "g", "1", "", 60, 30, 8, false});
  m.count_event({ServerEvent::Type::kClientConnected, 1, "a", "x", DisconnectReason::kUnknown, std::nullopt});
  m.count_event({ServerEvent::Type::kClientDenied, 0, "", "x", DisconnectReason::kServerFull, std::nullopt});
  m.count_event({ServerEvent::Type::kClientDisconnected, 1, "a", "x", DisconnectReason::kTimeout, std::nullopt});
  m.count_event({ServerEvent::Type::kClientDisconnected, 2, "b", "x", DisconnectReason::kTimeout, std::nullopt});
  const auto text = m.render();
  EXPECT_EQ(value_of(text, R"(tickwire_connection_events_total{event="connected",reason="none"})"), 1.0);
  EXPECT_EQ(value_of(text, R"(tickwire_connection_events_total{event="denied",reason="server_full"})"), 1.0);
  EXPECT_EQ(value_of(text, R"(tickwire_connection_events_total{event="disconnected",reason="timeout"})"), 2.0);
}

}  // namespace
}  // namespace tickwire::host
