#include "thresholds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tickwire::bots {
namespace {

ThresholdCheck at_most(std::string name, double figure, double limit) {
  return ThresholdCheck{std::move(name), "<=", figure, limit, figure <= limit, {}};
}

ThresholdCheck at_least(std::string name, double figure, double limit) {
  return ThresholdCheck{std::move(name), ">=", figure, limit, figure >= limit, {}};
}

// A threshold over a figure the run never produced proves nothing: it
// fails, saying what was missing.
ThresholdCheck needs_figure(ThresholdCheck check, bool present, std::string absent) {
  if (!present) {
    check.passed = false;
    check.absent = std::move(absent);
  }
  return check;
}

}  // namespace

std::string ThresholdCheck::describe() const {
  if (!absent.empty()) return name + ": no figure (" + absent + ")  FAILED";
  const char* shown = passed ? rule.c_str() : (rule == "<=" ? ">" : "<");
  char text[256];
  std::snprintf(text, sizeof text, "%s: %.6g %s %.6g%s", name.c_str(), figure, shown, limit, passed ? "" : "  FAILED");
  return text;
}

std::vector<ThresholdCheck> evaluate(const Summary& s, const Thresholds& t) {
  std::vector<ThresholdCheck> checks;
  checks.push_back(at_most("--max-late-inputs", s.late_input_fraction, t.max_late_input_fraction));
  checks.push_back(at_most("--max-mispredictions-per-min", s.mispredictions_per_min, t.max_mispredictions_per_min));
  checks.push_back(
      at_most("--max-disconnects", static_cast<double>(s.disconnect_count), static_cast<double>(t.max_disconnects)));
  checks.push_back(at_least("--min-connected", s.connected_fraction, t.min_connected_fraction));
  if (t.max_rtt_p99_ms) checks.push_back(at_most("--max-rtt-p99-ms", s.rtt_p99_ms, *t.max_rtt_p99_ms));
  if (t.max_late_burst_seconds) {
    checks.push_back(at_most("--max-late-burst-seconds", static_cast<double>(s.margins.late_burst_seconds),
                             static_cast<double>(*t.max_late_burst_seconds)));
  }
  if (t.min_input_margin_p99_ms) {
    const double figure = s.margins.p99_ms.value_or(std::nan(""));
    checks.push_back(needs_figure(at_least("--min-input-margin-p99-ms", figure, *t.min_input_margin_p99_ms),
                                  s.margins.p99_ms.has_value(), "no input margin was reported"));
  }
  if (t.min_hit_registration) {
    checks.push_back(needs_figure(
        at_least("--min-hit-registration", s.hit_registration.value_or(std::nan("")), *t.min_hit_registration),
        s.hit_registration.has_value(),
        "no shot on target was scored: run scripts that score shots (BotScript::shots)"));
  }
  if (t.max_false_hits) {
    checks.push_back(needs_figure(at_most("--max-false-hits", s.false_hits.value_or(std::nan("")), *t.max_false_hits),
                                  s.false_hits.has_value(),
                                  "no shot off target was scored: run scripts that score shots (BotScript::shots)"));
  }
  if (s.sync_checks > 0) checks.push_back(at_most("sync-test desyncs", static_cast<double>(s.desyncs), 0.0));
  return checks;
}

bool all_passed(const std::vector<ThresholdCheck>& checks) {
  return std::all_of(checks.begin(), checks.end(), [](const ThresholdCheck& c) { return c.passed; });
}

}  // namespace tickwire::bots
