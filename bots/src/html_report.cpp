// The HTML report: one page, every plot an inline SVG drawn here, no
// scripts and no external files, so it opens anywhere and can be attached
// to a ticket as it is.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "report.h"

namespace tickwire::bots {
namespace {

constexpr double kWidth = 720.0;
constexpr double kHeight = 220.0;
constexpr double kLeft = 64.0;
constexpr double kRight = 16.0;
constexpr double kTop = 28.0;
constexpr double kBottom = 36.0;

struct Line {
  std::string label;
  std::string colour;
  std::vector<std::pair<double, double>> points;
  bool markers = false;  // a dot at each point, for points that are not a series in time
};

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fixed(double v, int digits = 1) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, std::isfinite(v) ? v : 0.0);
  return buffer;
}

// Whole numbers without decimals, small fractions with as many as they need.
std::string axis_label(double v) {
  if (v == std::floor(v)) return fixed(v, 0);
  return fixed(v, v < 1.0 ? 3 : (v < 10.0 ? 2 : 1));
}

// The top of the y axis: a round number at or above `v`.
double nice_ceiling(double v) {
  if (!(v > 0.0)) return 1.0;
  const double step = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * step >= v) return m * step;
  }
  return 10.0 * step;
}

std::string chart(const std::string& title, const std::string& unit, const std::string& x_label,
                  const std::vector<Line>& lines) {
  double x_max = 0.0;
  double y_max = 0.0;
  double y_min = 0.0;
  double x_min = 0.0;
  bool any = false;
  for (const Line& line : lines) {
    for (const auto& [x, y] : line.points) {
      x_min = any ? std::min(x_min, x) : x;
      x_max = any ? std::max(x_max, x) : x;
      y_max = std::max(y_max, std::isfinite(y) ? y : 0.0);
      y_min = std::min(y_min, std::isfinite(y) ? y : 0.0);
      any = true;
    }
  }
  // Zero is always on the axis; below it only for figures that go negative
  // (a late input's margin).
  y_max = y_max > 0.0 || y_min == 0.0 ? nice_ceiling(y_max) : 0.0;
  y_min = y_min < 0.0 ? -nice_ceiling(-y_min) : 0.0;
  if (x_max <= x_min) x_max = x_min + 1.0;
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const auto px = [&](double x) { return kLeft + (x - x_min) / (x_max - x_min) * plot_w; };
  const auto py = [&](double y) {
    return kTop + plot_h - (std::clamp(y, y_min, y_max) - y_min) / (y_max - y_min) * plot_h;
  };

  std::string svg = "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fixed(kWidth, 0) + "\" height=\"" +
                    fixed(kHeight, 0) + "\" viewBox=\"0 0 " + fixed(kWidth, 0) + " " + fixed(kHeight, 0) +
                    "\" role=\"img\" aria-label=\"" + escape(title) + "\">\n";
  svg += "<text x=\"" + fixed(kLeft, 0) + "\" y=\"18\" class=\"title\">" + escape(title) + " (" + escape(unit) +
         ")</text>\n";
  for (int i = 0; i <= 4; ++i) {
    const double value = y_min + (y_max - y_min) * i / 4.0;
    const std::string y = fixed(py(value));
    svg += "<line x1=\"" + fixed(kLeft) + "\" y1=\"" + y + "\" x2=\"" + fixed(kWidth - kRight) + "\" y2=\"" + y +
           "\" class=\"grid\"/><text x=\"" + fixed(kLeft - 6) + "\" y=\"" + y + "\" class=\"ylabel\" dy=\"4\">" +
           (value < 0.0 ? "-" + axis_label(-value) : axis_label(value)) + "</text>\n";
  }
  if (y_min < 0.0) {
    const std::string y = fixed(py(0.0));
    svg += "<line x1=\"" + fixed(kLeft) + "\" y1=\"" + y + "\" x2=\"" + fixed(kWidth - kRight) + "\" y2=\"" + y +
           "\" class=\"zero\"/>\n";
  }
  for (int i = 0; i <= 4; ++i) {
    // Whole numbers (seconds, bot indices), each at its own place.
    const double value = std::round(x_min + (x_max - x_min) * i / 4.0);
    svg += "<text x=\"" + fixed(px(value)) + "\" y=\"" + fixed(kHeight - kBottom + 16) + "\" class=\"xlabel\">" +
           fixed(value, 0) + "</text>\n";
  }
  svg += "<text x=\"" + fixed(kLeft + plot_w / 2) + "\" y=\"" + fixed(kHeight - 4) + "\" class=\"xlabel\">" +
         escape(x_label) + "</text>\n";
  double legend_x = kWidth - kRight;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    legend_x -= 24.0 + 7.5 * static_cast<double>(it->label.size());
    svg += "<text x=\"" + fixed(legend_x) + "\" y=\"18\" style=\"fill:" + it->colour + "\" class=\"legend\">&#9632; " +
           escape(it->label) + "</text>\n";
  }
  for (const Line& line : lines) {
    if (line.points.empty()) continue;
    svg += "<polyline fill=\"none\" stroke=\"" + line.colour + "\" stroke-width=\"1.5\" points=\"";
    for (const auto& [x, y] : line.points) svg += fixed(px(x)) + "," + fixed(py(y)) + " ";
    svg += "\"/>\n";
    if (!line.markers) continue;
    for (const auto& [x, y] : line.points) {
      svg += "<circle cx=\"" + fixed(px(x)) + "\" cy=\"" + fixed(py(y)) + "\" r=\"2.5\" fill=\"" + line.colour + "\"/>";
    }
    svg += "\n";
  }
  if (!any) {
    svg += "<text x=\"" + fixed(kLeft + plot_w / 2) + "\" y=\"" + fixed(kTop + plot_h / 2) +
           "\" class=\"xlabel\">no data</text>\n";
  }
  return svg + "</svg></figure>\n";
}

template <class Get>
Line bot_line(const std::vector<SeriesPoint>& series, std::string label, std::string colour, Get get) {
  Line line{std::move(label), std::move(colour), {}};
  for (const SeriesPoint& p : series) line.points.emplace_back(p.t, static_cast<double>(get(p)));
  return line;
}

// A figure that some intervals lack: only the intervals that have it.
template <class Get>
Line sparse_line(const std::vector<SeriesPoint>& series, std::string label, std::string colour, Get get) {
  Line line{std::move(label), std::move(colour), {}};
  for (const SeriesPoint& p : series) {
    if (const std::optional<double> v = get(p)) line.points.emplace_back(p.t, *v);
  }
  return line;
}

// One point per bot that has the figure, at its index.
template <class Get>
Line per_bot_line(const MarginSummary& m, std::string label, std::string colour, Get get) {
  Line line{std::move(label), std::move(colour), {}, true};
  for (const BotMargins& b : m.bots) {
    if (const std::optional<double> v = get(b)) line.points.emplace_back(static_cast<double>(b.bot), *v);
  }
  return line;
}

Line server_line(const std::vector<ServerSample>& samples, const std::string& key, std::string label,
                 std::string colour) {
  Line line{std::move(label), std::move(colour), {}};
  for (const ServerSample& s : samples) {
    const std::optional<double> t = s.get("t");
    const std::optional<double> v = s.get(key);
    if (t && v) line.points.emplace_back(*t, *v);
  }
  return line;
}

std::string row(const std::string& name, const std::string& value) {
  return "<tr><th>" + escape(name) + "</th><td>" + escape(value) + "</td></tr>\n";
}

// Why the bots' predictions were corrected, per bot and for the run, and
// what the corrections did to the picture (corrections.h).
std::string corrections_table(const CorrectionSummary& c) {
  std::string html = "<h2>Corrections</h2><table>\n<tr><th>bot</th>";
  for (std::size_t i = 0; i < prediction::kCorrectionCauses; ++i) {
    html += "<th>" + std::string(prediction::to_string(static_cast<prediction::CorrectionCause>(i))) + "</th>";
  }
  html += "<th>as drawn p50 / p99</th><th>visual pops per minute</th></tr>\n";
  const auto line = [&](const std::string& name, const CorrectionFigures& f, double pops_per_min) {
    html += "<tr><td>" + escape(name) + "</td>";
    for (const std::uint64_t n : f.by_cause) html += "<td>" + std::to_string(n) + "</td>";
    html += "<td>" + fixed(f.correction_m_p50, 3) + " / " + fixed(f.correction_m_p99, 3) + "</td><td>" +
            fixed(pops_per_min, 2) + "</td></tr>\n";
  };
  line("all", c.totals, c.visual_pops_per_min);
  for (std::size_t i = 0; i < c.bots.size(); ++i) {
    line(std::to_string(i), c.bots[i].figures, c.bots[i].visual_pops_per_min);
  }
  return html + "</table>\n";
}

}  // namespace

std::string to_html(const Report& report) {
  const std::vector<SeriesPoint>& series = report.series;
  const Summary& s = report.summary;
  const char* blue = "#1f77b4";
  const char* orange = "#ff7f0e";
  const std::string bots_time = "seconds since start";
  const std::string program = escape(report.run.program);
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + program +
      " report</title>\n"
      "<style>body{font:14px sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
      "th,td{padding:2px 12px;text-align:left;border-bottom:1px solid #ddd}"
      "pre{white-space:pre-wrap}.pass{color:#2a7d2a}.fail{color:#c0392b;font-weight:bold}figure{margin:12px 0}"
      "svg text{font:12px sans-serif;fill:#444}svg .title{font-weight:bold}"
      "svg .ylabel{text-anchor:end}svg .xlabel{text-anchor:middle}svg .grid{stroke:#e4e4e4}svg .zero{stroke:#999}"
      "</style>\n"
      "</head><body>\n";
  html += "<h1>" + program + " report</h1>\n<p class=\"" + std::string(report.passed() ? "pass" : "fail") + "\">" +
          (report.passed() ? "PASS: every threshold held" : "FAIL: a threshold did not hold") + "</p>\n";
  html += "<h2>Run</h2><table>\n" + row("server", report.run.server) + row("script", report.run.script) +
          row("bots", std::to_string(report.run.bots)) + row("duration", fixed(s.seconds) + " s") +
          row("link inside the bots", report.run.link) + row("seed", std::to_string(report.run.seed)) + "</table>\n";
  html += "<h2>Thresholds</h2><table>\n";
  for (const ThresholdCheck& c : report.checks) {
    html +=
        "<tr class=\"" + std::string(c.passed ? "pass" : "fail") + "\"><td>" + escape(c.describe()) + "</td></tr>\n";
  }
  if (s.shots.on_target + s.shots.off_target + s.shots.unresolved > 0) {
    const auto pct = [](const std::optional<double>& v) { return v ? fixed(100.0 * *v, 2) + " %" : std::string("-"); };
    html += "</table>\n<h2>Hitscan shots</h2><table>\n" +
            row("hit registration", pct(s.hit_registration) + " of " + std::to_string(s.shots.on_target) +
                                        " shots on target in the shooter's view") +
            row("false hits", pct(s.false_hits) + " of " + std::to_string(s.shots.off_target) + " shots off target") +
            row("not scored", std::to_string(s.shots.teleport_blocked) + " refused by the respawn rules, " +
                                  std::to_string(s.shots.unresolved) + " never judged");
  }
  html += "</table>\n" + corrections_table(s.corrections);
  html += "<h2>Summary</h2><pre>" + escape(summary_text(report)) + "</pre>\n<h2>Over time</h2>\n";
  html += chart("Round trip time", "ms", bots_time,
                {bot_line(series, "p50", blue, [](const SeriesPoint& p) { return p.rtt_p50_ms; }),
                 bot_line(series, "p99", orange, [](const SeriesPoint& p) { return p.rtt_p99_ms; })});
  html += chart("Prediction lead", "ms, mean", bots_time,
                {bot_line(series, "lead", blue, [](const SeriesPoint& p) { return p.lead_ms; })});
  html += chart("Interpolation delay", "ms, mean", bots_time,
                {bot_line(series, "delay", blue, [](const SeriesPoint& p) { return p.interpolation_delay_ms; })});
  html +=
      chart("Mispredictions", "per bot-minute", bots_time,
            {bot_line(series, "mispredictions", blue, [](const SeriesPoint& p) { return p.mispredictions_per_min; })});
  html += chart("Late and missing inputs", "per second, all bots", bots_time,
                {bot_line(series, "late", blue, [](const SeriesPoint& p) { return p.late_inputs; }),
                 bot_line(series, "missing", orange, [](const SeriesPoint& p) { return p.missing_inputs; })});
  html +=
      chart("Input margin", "ms before the tick, all bots' inputs each second", bots_time,
            {sparse_line(series, "p50", blue, [](const SeriesPoint& p) { return p.margin_p50_ms; }),
             sparse_line(series, "p99 (99% reach it)", orange, [](const SeriesPoint& p) { return p.margin_p99_ms; })});
  html += chart("Input margin per bot", "ms, over the run", "bot",
                {per_bot_line(s.margins, "p50", blue, [](const BotMargins& b) { return b.p50_ms; }),
                 per_bot_line(s.margins, "p99 (99% reach it)", orange, [](const BotMargins& b) { return b.p99_ms; })});
  html += chart("Late-burst seconds per bot", "over 1% of its inputs late", "bot",
                {per_bot_line(s.margins, "late-burst seconds", blue, [](const BotMargins& b) {
                  return std::optional<double>(static_cast<double>(b.late_burst_seconds));
                })});
  html += chart("Bandwidth, payload", "kbit/s per bot, before ENet, UDP and IP (wire totals: Summary)", bots_time,
                {bot_line(series, "in", blue, [](const SeriesPoint& p) { return p.kbps_in; }),
                 bot_line(series, "out", orange, [](const SeriesPoint& p) { return p.kbps_out; })});
  html += chart("Bots connected", "bots", bots_time,
                {bot_line(series, "connected", blue, [](const SeriesPoint& p) { return p.connected; })});
  if (!report.server.empty()) {
    const std::string server_time = "seconds since the server started";
    html += "<h2>Server</h2>\n";
    html += chart("Server tick time", "µs", server_time,
                  {server_line(report.server, "tick_us_p50", "p50", blue),
                   server_line(report.server, "tick_us_p99", "p99", orange)});
    html += chart("Server clients", "clients", server_time, {server_line(report.server, "clients", "clients", blue)});
  }
  return html + "</body></html>\n";
}

}  // namespace tickwire::bots
