#pragma once
// Why each bot's prediction was corrected and what that did to the picture
// (client::ClientStats: mispredictions_by_cause, mispredictions_by_type,
// corrections_drawn, correction_p50/p99, visual_pops), per bot and for the
// run, with the JSON keys and summary lines the reports share.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tickwire/prediction/correction_cause.h"

namespace tickwire::bots {

struct CorrectionFigures {
  prediction::CorrectionCounts by_cause{};  // corrected entities, by CorrectionCause
  std::vector<std::uint64_t> by_type;       // corrected entities, by TypeId value
  std::uint64_t corrections_drawn = 0;
  double correction_m_p50 = 0.0;  // game units, as drawn
  double correction_m_p99 = 0.0;
  std::uint64_t visual_pops = 0;
  std::uint64_t frames_drawn = 0;
};

// Adds the counts of `from` into `into`; the quantiles are left alone
// (they do not add up: summarize_corrections takes them from the bots).
void add_correction_counts(CorrectionFigures& into, const CorrectionFigures& from);

struct BotCorrections {
  CorrectionFigures figures;
  double visual_pops_per_min = 0.0;
};

struct CorrectionSummary {
  // Counts summed over the bots; p50 the median of the bots' p50 and p99
  // the worst bot's p99, over bots that drew a correction.
  CorrectionFigures totals;
  double visual_pops_per_min = 0.0;  // per connected bot-minute
  std::vector<BotCorrections> bots;  // by bot index
};

// `connected_seconds`: each bot's, in the same order as `bots`.
CorrectionSummary summarize_corrections(std::span<const CorrectionFigures> bots,
                                        std::span<const double> connected_seconds);

// The JSON fields (key, value) of one bot's or the run's figures:
// mispredictions_by_cause (the five causes), mispredictions_by_type (keyed
// by `type_names`, a type without a name by its number), correction_m_p50,
// correction_m_p99, visual_pops_per_min, corrections_drawn, visual_pops.
std::vector<std::pair<std::string, std::string>> correction_json_fields(const CorrectionFigures& f,
                                                                        double visual_pops_per_min,
                                                                        std::span<const std::string> type_names);

// The summary text's lines for the run.
std::string correction_text(const CorrectionSummary& s, std::span<const std::string> type_names);

}  // namespace tickwire::bots
