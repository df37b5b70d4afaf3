// The reports: the HTML page stands alone, the JSON is well formed and
// carries the figures, the server's stats file is read leniently.

#include "report.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <sstream>
#include <string>

namespace tickwire::bots {
namespace {

Report sample_report() {
  Report r;
  r.run = RunInfo{"127.0.0.1:7777", "wander", "broadband", 2, 3.0, 0.0, 1, 60, 60};
  Recorder recorder;
  std::vector<BotFigures> bots;
  for (int t = 1; t <= 3; ++t) {
    BotFigures f;
    f.connected = true;
    f.rtt_ms = 40.0 + t;
    f.connected_seconds = t;
    f.bytes_in = 4000U * static_cast<unsigned>(t);
    f.predicted_ticks = 60U * static_cast<unsigned>(t);
    // Every input 8 ms early, but one of the second bot's 2.5 ms late.
    f.margins.add(Duration::millis(8), 60U * static_cast<unsigned>(t));
    f.margins_exact = f.margins.count();
    BotFigures g = f;
    g.margins.add(Duration::micros(-2500));
    g.late_burst_seconds = 1;
    bots = {f, g};
    recorder.sample(t, bots);
  }
  Outcome outcome;
  outcome.bots = 2;
  outcome.connected_ever = 2;
  outcome.disconnects["timeout \"odd\" <reason>"] = 1;
  r.summary = summarize(recorder, bots, outcome, 3.0, 60);
  r.series = recorder.series();
  r.server.push_back(*parse_server_line(R"({"t":1.0,"clients":2,"tick_us_p50":120,"tick_us_p99":300})"));
  r.server.push_back(*parse_server_line(R"({"t":2.0,"clients":2,"tick_us_p50":130,"tick_us_p99":310})"));
  r.checks = evaluate(r.summary, Thresholds{});
  return r;
}

// Checks that `text` is one JSON value: strings, numbers, literals,
// objects and arrays, nothing after it. Enough to catch a stray comma or
// an unescaped quote.
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& text) : s_(text) {}
  bool valid() {
    space();
    if (!value()) return false;
    space();
    return i_ == s_.size();
  }

 private:
  void space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])) != 0) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool string() {
    if (!eat('"')) return false;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) return false;
      i_ += s_[i_] == '\\' ? 2U : 1U;
    }
    return eat('"');
  }
  bool value() {
    space();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '"') return string();
    if (c == '{') return list('}', true);
    if (c == '[') return list(']', false);
    for (const char* literal : {"true", "false", "null"}) {
      if (s_.compare(i_, std::strlen(literal), literal) == 0) {
        i_ += std::strlen(literal);
        return true;
      }
    }
    const std::size_t start = i_;
    while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_]) != nullptr) ++i_;
    return i_ > start;
  }
  bool list(char close, bool object) {
    ++i_;
    if (eat(close)) return true;
    do {
      if (object && (!string() || !eat(':'))) return false;
      if (!value()) return false;
    } while (eat(','));
    return eat(close);
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

TEST(BotReport, TheHtmlStandsAlone) {
  const std::string html = to_html(sample_report());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_NE(html.find("Server tick time"), std::string::npos);
  EXPECT_NE(html.find("Round trip time"), std::string::npos);
  for (const char* outside : {"<script", "<link", "src=", "href=", "@import", "url("}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << "refers outside the page: " << outside;
  }
  // A reason the server chose is shown, escaped.
  EXPECT_NE(html.find("&lt;reason&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<reason>"), std::string::npos);
}

TEST(BotReport, TheHtmlPlotsTheInputMarginsOverTimeAndPerBot) {
  Report r = sample_report();
  std::string html = to_html(r);
  EXPECT_NE(html.find("Input margin (ms before the tick"), std::string::npos);
  EXPECT_NE(html.find("Input margin per bot"), std::string::npos);
  EXPECT_NE(html.find("Late-burst seconds per bot"), std::string::npos);
  EXPECT_NE(html.find("<circle"), std::string::npos);
  EXPECT_EQ(html.find("class=\"zero\""), std::string::npos);
  // A bot whose p99 is late takes the axis below zero.
  r.summary.margins.bots[1].p99_ms = -2.5;
  html = to_html(r);
  EXPECT_NE(html.find("class=\"zero\""), std::string::npos);
}

TEST(BotReport, WithoutServerStatsThereIsNoServerSection) {
  Report r = sample_report();
  r.server.clear();
  EXPECT_EQ(to_html(r).find("Server tick time"), std::string::npos);
}

TEST(BotReport, TheJsonIsWellFormedAndCarriesTheFigures) {
  const std::string json = to_json(sample_report());
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  for (const char* key : {"\"run\"", "\"summary\"", "\"series\"", "\"server\"", "\"thresholds\"", "\"passed\"",
                          "\"rtt_p99_ms\"", "\"late_input_fraction\"", "\"mispredictions_per_min\"",
                          "\"kbps_in_per_bot\"", "\"disconnects_by_reason\"", "\"tick_us_p99\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
  EXPECT_NE(json.find(R"("timeout \"odd\" <reason>":1)"), std::string::npos);
}

TEST(BotReport, WireRatesAppearBesideThePayloadRates) {
  Report r = sample_report();
  r.summary.wire_kbps_in = 123.4;
  r.summary.wire_kbps_out = 56.7;
  const std::string json = to_json(r);
  EXPECT_NE(json.find("\"wire_kbps_in_per_bot\":123.4"), std::string::npos) << json;
  EXPECT_NE(json.find("\"wire_kbps_out_per_bot\":56.7"), std::string::npos) << json;
  EXPECT_NE(summary_text(r).find("wire kbps in / out        123.4 / 56.7 per bot"), std::string::npos);
  r.summary.wire_datagrams_in = 38.5;
  r.summary.wire_datagrams_out = 61.2;
  EXPECT_NE(to_json(r).find("\"wire_datagrams_out_per_bot_per_s\":61.2"), std::string::npos);
  EXPECT_NE(summary_text(r).find("datagrams in / out        38.5 / 61.2 per bot per second"), std::string::npos);
  // The HTML report carries the summary, wire lines included, and names
  // its chart's figure as payload.
  const std::string html = to_html(r);
  EXPECT_NE(html.find("wire kbps in / out        123.4 / 56.7 per bot"), std::string::npos);
  EXPECT_NE(html.find("Bandwidth, payload"), std::string::npos);
}

TEST(BotReport, TheJsonCarriesEachBotsMarginsAndTheFleets) {
  const std::string json = to_json(sample_report());
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  // Per bot: 180 inputs at 8 ms; the second also one at -2.5 ms, below 1%
  // of its 181 (the 2nd smallest is its p99).
  EXPECT_NE(json.find(R"({"bot":0,"input_margin_ms_p50":8,"input_margin_ms_p99":8,"late_burst_seconds":0,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"({"bot":1,"input_margin_ms_p50":8,"input_margin_ms_p99":8,"late_burst_seconds":1,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("input_margin_ms_p50":8,"input_margin_ms_p99":8,"input_margins":361,)"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("late_burst_seconds":1,"late_burst_seconds_max_bot":1)"), std::string::npos) << json;
  // The series: the first interval pools 120 margins, the second 120.
  EXPECT_NE(json.find(R"("input_margins":121,"input_margin_ms_p50":8,"input_margin_ms_p99":8,"late_burst_bots":1})"),
            std::string::npos)
      << json;
}

TEST(BotReport, AFleetWithoutMarginsSaysNull) {
  Report r = sample_report();
  r.summary.margins = summarize_margins({});
  const std::string json = to_json(r);
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  EXPECT_NE(json.find(R"("input_margin_ms_p50":null,"input_margin_ms_p99":null)"), std::string::npos) << json;
  EXPECT_NE(summary_text(r).find("input margin p50 / p99    n/a / n/a ms"), std::string::npos);
}

TEST(BotReport, TheSummaryTableShowsCountsAndTheVerdict) {
  const std::string text = summary_text(sample_report());
  EXPECT_NE(text.find("connected                 2/2"), std::string::npos) << text;
  EXPECT_NE(text.find("late inputs"), std::string::npos);
  EXPECT_NE(text.find("input margin p50 / p99    8.0 / 8.0 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("late-burst seconds        1 (worst bot 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("result: FAIL (1 thresholds failed)"), std::string::npos) << text;
}

// Two bots whose predictions were corrected for different reasons.
Report corrected_report() {
  Report r = sample_report();
  r.run.type_names = {"player", "", "ball"};  // type 1 a record: no key
  std::vector<BotFigures> bots(2);
  bots[0].connected_seconds = 60.0;
  bots[0].corrections.by_cause = {3, 5, 0, 1, 2};
  bots[0].corrections.by_type = {9, 0, 2};
  bots[0].corrections.corrections_drawn = 11;
  bots[0].corrections.correction_m_p50 = 0.02;
  bots[0].corrections.correction_m_p99 = 0.5;
  bots[0].corrections.visual_pops = 2;
  bots[1].connected_seconds = 30.0;
  bots[1].corrections.by_cause = {1, 0, 4, 0, 0};
  bots[1].corrections.by_type = {1, 0, 4};
  bots[1].corrections.corrections_drawn = 5;
  bots[1].corrections.correction_m_p50 = 0.04;
  bots[1].corrections.correction_m_p99 = 0.25;
  bots[1].corrections.visual_pops = 1;
  Outcome outcome;
  outcome.bots = 2;
  r.summary = summarize(Recorder{}, bots, outcome, 60.0, 60);
  return r;
}

TEST(BotReport, TheJsonBreaksCorrectionsDownPerBotAndForTheRun) {
  const std::string json = to_json(corrected_report());
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  // The run: counts summed, the median bot's p50, the worst bot's p99,
  // pops per connected bot-minute (3 in 1.5 minutes).
  EXPECT_NE(json.find(R"("mispredictions_by_cause":{"own_input":4,"remote_player":5,"unowned":4,"spawn":1,)"
                      R"("server_event":2},"mispredictions_by_type":{"player":10,"ball":6},"correction_m_p50":0.02,)"
                      R"("correction_m_p99":0.5,"visual_pops_per_min":2,"corrections_drawn":16,"visual_pops":3})"),
            std::string::npos)
      << json;
  // Each bot, after its margins.
  EXPECT_NE(json.find(R"("mispredictions_by_cause":{"own_input":3,"remote_player":5,"unowned":0,"spawn":1,)"
                      R"("server_event":2},"mispredictions_by_type":{"player":9,"ball":2},"correction_m_p50":0.02,)"
                      R"("correction_m_p99":0.5,"visual_pops_per_min":2,"corrections_drawn":11,"visual_pops":2})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("mispredictions_by_cause":{"own_input":1,"remote_player":0,"unowned":4,"spawn":0,)"
                      R"("server_event":0},"mispredictions_by_type":{"player":1,"ball":4},"correction_m_p50":0.04,)"
                      R"("correction_m_p99":0.25,"visual_pops_per_min":2,"corrections_drawn":5,"visual_pops":1})"),
            std::string::npos)
      << json;
}

TEST(BotReport, EveryBotAndTheRunCarryEveryCorrectionKey) {
  const std::string json = to_json(sample_report());  // nothing corrected: zeros, every key
  const std::string keys[] = {
      "\"mispredictions_by_cause\":{\"own_input\":0,\"remote_player\":0,\"unowned\":0,"
      "\"spawn\":0,\"server_event\":0}",
      "\"mispredictions_by_type\":{}",
      "\"correction_m_p50\":0",
      "\"correction_m_p99\":0",
      "\"visual_pops_per_min\":0",
      "\"corrections_drawn\":0",
      "\"visual_pops\":0"};
  for (const std::string& key : keys) {
    std::size_t found = 0;
    for (std::size_t at = json.find(key); at != std::string::npos; at = json.find(key, at + 1)) ++found;
    EXPECT_EQ(found, 3U) << key << " in the run and each of the 2 bots: " << json;
  }
}

TEST(BotReport, TheSummaryAndTheHtmlShowTheCorrections) {
  const Report r = corrected_report();
  const std::string text = summary_text(r);
  EXPECT_NE(text.find("corrected entities by cause own_input 4 remote_player 5 unowned 4 spawn 1 server_event 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("corrected entities by type player 10 ball 6"), std::string::npos) << text;
  EXPECT_NE(text.find("visual pops               3 (2.00 per bot-minute"), std::string::npos) << text;
  const std::string html = to_html(r);
  EXPECT_NE(html.find("<h2>Corrections</h2>"), std::string::npos);
  EXPECT_NE(html.find("<th>remote_player</th>"), std::string::npos);
}

TEST(BotServerStats, LinesAreReadLeniently) {
  std::istringstream in(
      "{\"t\":1.5,\"clients\":3,\"tick_us_p50\":120,\"note\":\"x, y}\",\"nested\":{\"a\":[1,2]},\"ok\":true}\n"
      "not json\n"
      "\n"
      "{\"t\":2.5,\"clients\":4}\n"
      "{\"t\":3.5,\"clients\":\n");
  const auto samples = read_server_stats(in);
  ASSERT_EQ(samples.size(), 2U);
  EXPECT_EQ(samples[0].get("t"), 1.5);
  EXPECT_EQ(samples[0].get("clients"), 3.0);
  EXPECT_EQ(samples[0].get("tick_us_p50"), 120.0);
  EXPECT_FALSE(samples[0].get("note").has_value());
  EXPECT_FALSE(samples[0].get("tick_us_p99").has_value());
  EXPECT_EQ(samples[1].get("clients"), 4.0);
}

}  // namespace
}  // namespace tickwire::bots
