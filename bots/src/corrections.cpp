#include "corrections.h"

#include <algorithm>

#include "metrics.h"
#include "report_text.h"
#include "tickwire/core/logging.h"

namespace tickwire::bots {

namespace {

using tools::format;
using tools::json_number;
using tools::ull;

double per_minute(std::uint64_t count, double seconds) {
  return seconds > 0.0 ? static_cast<double>(count) * 60.0 / seconds : 0.0;
}

std::string type_name(std::size_t type, std::span<const std::string> names) {
  return type < names.size() && !names[type].empty() ? names[type] : "type_" + std::to_string(type);
}

std::string quoted(const std::string& s) { return "\"" + json_escape(s) + "\""; }

}  // namespace

void add_correction_counts(CorrectionFigures& into, const CorrectionFigures& from) {
  for (std::size_t i = 0; i < into.by_cause.size(); ++i) into.by_cause[i] += from.by_cause[i];
  if (into.by_type.size() < from.by_type.size()) into.by_type.resize(from.by_type.size());
  for (std::size_t i = 0; i < from.by_type.size(); ++i) into.by_type[i] += from.by_type[i];
  into.corrections_drawn += from.corrections_drawn;
  into.visual_pops += from.visual_pops;
  into.frames_drawn += from.frames_drawn;
}

CorrectionSummary summarize_corrections(std::span<const CorrectionFigures> bots,
                                        std::span<const double> connected_seconds) {
  CorrectionSummary s;
  std::vector<double> p50s;
  double seconds = 0.0;
  for (std::size_t i = 0; i < bots.size(); ++i) {
    const CorrectionFigures& f = bots[i];
    const double connected = i < connected_seconds.size() ? connected_seconds[i] : 0.0;
    seconds += connected;
    add_correction_counts(s.totals, f);
    s.bots.push_back({f, per_minute(f.visual_pops, connected)});
    if (f.corrections_drawn > 0) {
      p50s.push_back(f.correction_m_p50);
      s.totals.correction_m_p99 = std::max(s.totals.correction_m_p99, f.correction_m_p99);
    }
  }
  s.totals.correction_m_p50 = percentile(std::move(p50s), 0.50);
  s.visual_pops_per_min = per_minute(s.totals.visual_pops, seconds);
  return s;
}

std::vector<std::pair<std::string, std::string>> correction_json_fields(const CorrectionFigures& f,
                                                                        double visual_pops_per_min,
                                                                        std::span<const std::string> type_names) {
  std::string causes = "{";
  for (std::size_t i = 0; i < prediction::kCorrectionCauses; ++i) {
    const auto name = prediction::to_string(static_cast<prediction::CorrectionCause>(i));
    causes += (i == 0 ? "" : ",") + quoted(std::string(name)) + ":" + std::to_string(f.by_cause[i]);
  }
  causes += "}";
  // Every entity type the schema names, corrected or not, so runs compare key by key.
  std::string types = "{";
  const std::size_t count = std::max(type_names.size(), f.by_type.size());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t n = i < f.by_type.size() ? f.by_type[i] : 0;
    const bool named = i < type_names.size() && !type_names[i].empty();
    if (!named && n == 0) continue;  // a record type, or none the schema names
    types += (types.size() > 1 ? "," : "") + quoted(type_name(i, type_names)) + ":" + std::to_string(n);
  }
  types += "}";
  return {{"mispredictions_by_cause", causes},
          {"mispredictions_by_type", types},
          {"correction_m_p50", json_number(f.correction_m_p50)},
          {"correction_m_p99", json_number(f.correction_m_p99)},
          {"visual_pops_per_min", json_number(visual_pops_per_min)},
          {"corrections_drawn", std::to_string(f.corrections_drawn)},
          {"visual_pops", std::to_string(f.visual_pops)}};
}

std::string correction_text(const CorrectionSummary& s, std::span<const std::string> type_names) {
  const CorrectionFigures& f = s.totals;
  std::string out = "  corrected entities by cause";
  for (std::size_t i = 0; i < prediction::kCorrectionCauses; ++i) {
    const auto name = prediction::to_string(static_cast<prediction::CorrectionCause>(i));
    out += format(" %.*s %llu", static_cast<int>(name.size()), name.data(), ull(f.by_cause[i]));
  }
  out += "\n  corrected entities by type";
  bool any = false;
  for (std::size_t i = 0; i < f.by_type.size(); ++i) {
    if (f.by_type[i] == 0) continue;
    out += " " + type_name(i, type_names) + " " + std::to_string(f.by_type[i]);
    any = true;
  }
  out += any ? "\n" : " none\n";
  out += format("  correction as drawn p50 / p99  %.3f / %.3f (game units, %llu corrections drawn)\n",
                f.correction_m_p50, f.correction_m_p99, ull(f.corrections_drawn));
  out += format("  visual pops               %llu (%.2f per bot-minute, %llu frames drawn)\n", ull(f.visual_pops),
                s.visual_pops_per_min, ull(f.frames_drawn));
  return out;
}

}  // namespace tickwire::bots
