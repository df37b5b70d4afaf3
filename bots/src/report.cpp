#include "report.h"

#include <cmath>
#include <optional>
#include <sstream>

#include "report_text.h"
#include "tickwire/core/logging.h"

namespace tickwire::bots {
namespace {

using tools::format;
using tools::json_number;
using tools::ull;

std::string quoted(const std::string& s) { return "\"" + json_escape(s) + "\""; }

// Writes `"key":value` pairs separated by commas.
class Fields {
 public:
  explicit Fields(std::ostringstream& out) : out_(out) {}
  Fields& raw(const std::string& key, const std::string& value) {
    out_ << (first_ ? "" : ",") << quoted(key) << ':' << value;
    first_ = false;
    return *this;
  }
  Fields& num(const std::string& key, double v) { return raw(key, json_number(v)); }
  Fields& count(const std::string& key, std::uint64_t v) { return raw(key, std::to_string(v)); }
  Fields& text(const std::string& key, const std::string& v) { return raw(key, quoted(v)); }
  Fields& maybe(const std::string& key, const std::optional<double>& v) {
    return raw(key, v ? json_number(*v) : "null");
  }

 private:
  std::ostringstream& out_;
  bool first_ = true;
};

std::string ms_or_none(const std::optional<double>& v) { return v ? format("%.1f", *v) : std::string("n/a"); }

std::string counts_object(const std::map<std::string, std::uint64_t>& counts) {
  std::string out = "{";
  for (const auto& [key, value] : counts) {
    out += (out.size() > 1 ? "," : "") + quoted(key) + ":" + std::to_string(value);
  }
  return out + "}";
}

// The socket's count beside the payload's (Summary::wire_kbps_in).
std::string wire_text(const Summary& s) {
  return format(
      "  wire kbps in / out        %.1f / %.1f per bot (at the socket, with IP and UDP headers)\n"
      "  datagrams in / out        %.1f / %.1f per bot per second\n",
      s.wire_kbps_in, s.wire_kbps_out, s.wire_datagrams_in, s.wire_datagrams_out);
}

}  // namespace

std::string summary_text(const Report& report) {
  const Summary& s = report.summary;
  const Outcome& o = s.outcome;
  std::string out;
  out += format("%s summary: %zu bots, script %s, %.1f s, link %s, seed %llu\n", report.run.program.c_str(),
                report.run.bots, report.run.script.c_str(), s.seconds, report.run.link.c_str(), ull(report.run.seed));
  out +=
      format("  connected                 %zu/%zu (%.1f%%)\n", o.connected_ever, o.bots, 100.0 * s.connected_fraction);
  out += format("  still connected           %zu\n", o.still_connected);
  out += format("  disconnects               %llu (not asked for)\n", ull(s.disconnect_count));
  for (const auto& [reason, count] : o.disconnects) out += format("    %s: %llu\n", reason.c_str(), ull(count));
  std::uint64_t denied = 0;
  for (const auto& [reason, count] : o.denials) denied += count;
  out += format("  denied                    %llu\n", ull(denied));
  for (const auto& [reason, count] : o.denials) out += format("    %s: %llu\n", reason.c_str(), ull(count));
  if (o.churn_leaves > 0) out += format("  left by script            %llu\n", ull(o.churn_leaves));
  out += format("  rtt p50 / p99 / max       %.1f / %.1f / %.1f ms\n", s.rtt_p50_ms, s.rtt_p99_ms, s.rtt_max_ms);
  out += format("  jitter mean               %.2f ms\n", s.jitter_mean_ms);
  out += format("  loss mean                 %.2f%%\n", 100.0 * s.loss_mean);
  out += format("  lead mean                 %.1f ms\n", s.lead_mean_ms);
  out += format("  interpolation delay mean  %.1f ms\n", s.interpolation_delay_mean_ms);
  out += format("  mispredictions            %llu (%.1f per bot-minute)\n", ull(s.mispredictions),
                s.mispredictions_per_min);
  out += correction_text(s.corrections, report.run.type_names);
  out += format("  rollbacks                 %llu, max depth %u ticks\n", ull(s.rollbacks), s.max_rollback_depth);
  out += format("  late inputs               %llu (%.4f of %llu inputs sent)\n", ull(s.late_inputs),
                s.late_input_fraction, ull(s.predicted_ticks));
  out += format("  missing inputs            %llu (%.4f of %llu server ticks connected)\n", ull(s.missing_inputs),
                s.missing_input_fraction, ull(s.connected_ticks));
  const MarginSummary& m = s.margins;
  out += format("  input margin p50 / p99    %s / %s ms (median of the bots' p50 / worst bot's p99)\n",
                ms_or_none(m.p50_ms).c_str(), ms_or_none(m.p99_ms).c_str());
  out += format("  input margins seen        %llu inputs of %zu bots, %.1f%% known exactly\n", ull(m.inputs),
                m.bots_reported, 100.0 * m.exact_fraction);
  out += format("  late-burst seconds        %llu (worst bot %llu)\n", ull(m.late_burst_seconds),
                ull(m.late_burst_seconds_max));
  out += format("  hard resets               %llu\n", ull(s.hard_resets));
  out += format("  kbps in / out             %.1f / %.1f per bot\n", s.kbps_in, s.kbps_out);
  out += wire_text(s);
  out += format("  snapshots per second      %.1f per bot\n", s.snapshots_per_second);
  if (s.shots.on_target + s.shots.off_target + s.shots.unresolved > 0) {
    const auto pct = [](const std::optional<double>& v) { return v ? format("%.2f%%", 100.0 * *v) : std::string("-"); };
    out += format("  hit registration          %s (%llu of %llu shots on target in the shooter's view)\n",
                  pct(s.hit_registration).c_str(), ull(s.shots.on_target_hits), ull(s.shots.on_target));
    out += format("  false hits                %s (%llu of %llu shots off target)\n", pct(s.false_hits).c_str(),
                  ull(s.shots.off_target_hits), ull(s.shots.off_target));
    out += format("  shots not scored          %llu refused by the respawn rules, %llu never judged\n",
                  ull(s.shots.teleport_blocked), ull(s.shots.unresolved));
  }
  if (s.sync_checks > 0 || s.desyncs > 0) {
    out += format("  sync test                 %llu checks, %llu desyncs\n", ull(s.sync_checks), ull(s.desyncs));
  }
  out +=
      "  (rates are per bot per second connected; a late input is one the server received after its tick ran,\n"
      "   counted against the inputs sent, one per predicted tick; an input's margin is how long before its tick\n"
      "   ran its first copy reached the server, p99 the margin 99% of a bot's inputs reach or exceed; a late-burst\n"
      "   second is one in which more than 1% of a bot's inputs were reported late)\n";
  out += evil_summary_text(report.evil);
  out += "thresholds\n";
  std::size_t failed = 0;
  for (const ThresholdCheck& check : report.checks) {
    out += "  " + check.describe() + "\n";
    failed += check.passed ? 0 : 1;
  }
  out += failed == 0 ? std::string("result: PASS\n") : format("result: FAIL (%zu thresholds failed)\n", failed);
  if (!o.first_desync.empty()) out += "first desync:\n" + o.first_desync + "\n";
  return out;
}

std::string to_json(const Report& report) {
  const Summary& s = report.summary;
  const Outcome& o = s.outcome;
  std::ostringstream out;
  out << "{\"run\":{";
  Fields(out)
      .text("server", report.run.server)
      .text("script", report.run.script)
      .text("link", report.run.link)
      .count("bots", report.run.bots)
      .num("duration_s", report.run.duration_s)
      .num("ramp_s", report.run.ramp_s)
      .count("seed", report.run.seed)
      .count("frame_rate", static_cast<std::uint64_t>(report.run.frame_rate))
      .count("tick_rate", report.run.tick_rate);
  out << "},\"summary\":{";
  Fields(out)
      .num("seconds", s.seconds)
      .count("bots", o.bots)
      .count("connected", o.connected_ever)
      .num("connected_fraction", s.connected_fraction)
      .count("still_connected", o.still_connected)
      .count("disconnects", s.disconnect_count)
      .raw("disconnects_by_reason", counts_object(o.disconnects))
      .raw("denials_by_reason", counts_object(o.denials))
      .count("left_by_script", o.churn_leaves)
      .num("rtt_p50_ms", s.rtt_p50_ms)
      .num("rtt_p99_ms", s.rtt_p99_ms)
      .num("rtt_max_ms", s.rtt_max_ms)
      .num("jitter_mean_ms", s.jitter_mean_ms)
      .num("loss_mean", s.loss_mean)
      .num("lead_mean_ms", s.lead_mean_ms)
      .num("interpolation_delay_mean_ms", s.interpolation_delay_mean_ms)
      .count("mispredictions", s.mispredictions)
      .num("mispredictions_per_min", s.mispredictions_per_min)
      .count("rollbacks", s.rollbacks)
      .count("max_rollback_depth", s.max_rollback_depth)
      .count("inputs_sent", s.predicted_ticks)
      .count("server_ticks_connected", s.connected_ticks)
      .count("late_inputs", s.late_inputs)
      .num("late_input_fraction", s.late_input_fraction)
      .count("missing_inputs", s.missing_inputs)
      .num("missing_input_fraction", s.missing_input_fraction)
      .maybe("input_margin_ms_p50", s.margins.p50_ms)
      .maybe("input_margin_ms_p99", s.margins.p99_ms)
      .count("input_margins", s.margins.inputs)
      .num("input_margins_exact_fraction", s.margins.exact_fraction)
      .count("bots_with_margins", s.margins.bots_reported)
      .count("late_burst_seconds", s.margins.late_burst_seconds)
      .count("late_burst_seconds_max_bot", s.margins.late_burst_seconds_max)
      .count("hard_resets", s.hard_resets)
      .num("kbps_in_per_bot", s.kbps_in)
      .num("kbps_out_per_bot", s.kbps_out)
      .num("wire_kbps_in_per_bot", s.wire_kbps_in)
      .num("wire_kbps_out_per_bot", s.wire_kbps_out)
      .num("wire_datagrams_in_per_bot_per_s", s.wire_datagrams_in)
      .num("wire_datagrams_out_per_bot_per_s", s.wire_datagrams_out)
      .num("snapshots_per_second_per_bot", s.snapshots_per_second)
      .count("sync_checks", s.sync_checks)
      .count("desyncs", s.desyncs)
      .maybe("hit_registration", s.hit_registration)
      .maybe("false_hits", s.false_hits)
      .count("shots_on_target", s.shots.on_target)
      .count("shots_on_target_hits", s.shots.on_target_hits)
      .count("shots_off_target", s.shots.off_target)
      .count("shots_off_target_hits", s.shots.off_target_hits)
      .count("shots_teleport_blocked", s.shots.teleport_blocked)
      .count("shots_unresolved", s.shots.unresolved)
      .text("first_desync", o.first_desync);
  for (const auto& [key, value] :
       correction_json_fields(s.corrections.totals, s.corrections.visual_pops_per_min, report.run.type_names)) {
    out << ',' << quoted(key) << ':' << value;
  }
  out << "},\"bots\":[";
  for (std::size_t i = 0; i < s.margins.bots.size(); ++i) {
    const BotMargins& b = s.margins.bots[i];
    out << (i == 0 ? "{" : ",{");
    Fields(out)
        .count("bot", b.bot)
        .maybe("input_margin_ms_p50", b.p50_ms)
        .maybe("input_margin_ms_p99", b.p99_ms)
        .count("late_burst_seconds", b.late_burst_seconds)
        .count("late_inputs", b.late_inputs)
        .count("input_margins", b.inputs)
        .count("input_margins_exact", b.exact);
    if (i < s.corrections.bots.size()) {
      const BotCorrections& c = s.corrections.bots[i];
      for (const auto& [key, value] : correction_json_fields(c.figures, c.visual_pops_per_min, report.run.type_names)) {
        out << ',' << quoted(key) << ':' << value;
      }
    }
    out << "}";
  }
  out << "],\"thresholds\":[";
  for (std::size_t i = 0; i < report.checks.size(); ++i) {
    const ThresholdCheck& c = report.checks[i];
    out << (i == 0 ? "{" : ",{");
    Fields(out)
        .text("name", c.name)
        .text("rule", c.rule)
        .num("figure", c.figure)
        .num("limit", c.limit)
        .raw("passed", c.passed ? "true" : "false");
    out << "}";
  }
  out << "],\"passed\":" << (report.passed() ? "true" : "false") << ",\"series\":[";
  for (std::size_t i = 0; i < report.series.size(); ++i) {
    const SeriesPoint& p = report.series[i];
    out << (i == 0 ? "{" : ",{");
    Fields(out)
        .num("t", p.t)
        .count("connected", p.connected)
        .num("rtt_p50_ms", p.rtt_p50_ms)
        .num("rtt_p99_ms", p.rtt_p99_ms)
        .num("lead_ms", p.lead_ms)
        .num("interpolation_delay_ms", p.interpolation_delay_ms)
        .num("mispredictions_per_min", p.mispredictions_per_min)
        .count("late_inputs", p.late_inputs)
        .count("missing_inputs", p.missing_inputs)
        .num("kbps_in_per_bot", p.kbps_in)
        .num("kbps_out_per_bot", p.kbps_out)
        .count("input_margins", p.margins)
        .maybe("input_margin_ms_p50", p.margin_p50_ms)
        .maybe("input_margin_ms_p99", p.margin_p99_ms)
        .count("late_burst_bots", p.late_burst_bots);
    out << "}";
  }
  out << "],\"evil\":" << evil_json(report.evil) << ",\"server\":[";
  for (std::size_t i = 0; i < report.server.size(); ++i) {
    out << (i == 0 ? "{" : ",{");
    Fields fields(out);
    for (const auto& [key, value] : report.server[i].values) fields.num(key, value);
    out << "}";
  }
  out << "]}\n";
  return out.str();
}

}  // namespace tickwire::bots
