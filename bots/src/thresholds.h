#pragma once
// The pass/fail rules of a soak run: each threshold compared with the
// summary's figure, so the exit code and the reports say which one failed,
// by how much.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics.h"

namespace tickwire::bots {

struct Thresholds {
  double max_late_input_fraction = 0.01;
  double max_mispredictions_per_min = 600.0;  // per connected bot
  std::uint64_t max_disconnects = 0;          // not counting those a script asked for
  double min_connected_fraction = 1.0;        // of the bots, connected at least once
  std::optional<double> max_rtt_p99_ms;       // off unless given
  // Late-burst seconds summed over the bots; off unless given.
  std::optional<std::uint64_t> max_late_burst_seconds;
  // The worst bot's input margin p99 (the margin 99% of its inputs reach);
  // off unless given. A run without margins fails it.
  std::optional<double> min_input_margin_p99_ms;
  // Hitscan shots (scripts that score shots, BotScript::shots): the least
  // registration and the most false hits, as fractions; off unless given.
  // A run without such shots fails them.
  std::optional<double> min_hit_registration;
  std::optional<double> max_false_hits;
  // Any desync found by the sync test fails the run; not configurable,
  // since a non-deterministic simulate is always a bug.
};

struct ThresholdCheck {
  std::string name;  // the flag that sets it
  std::string rule;  // "<=" or ">="
  double figure = 0.0;
  double limit = 0.0;
  bool passed = true;
  std::string absent;            // why there is no figure to judge (then it fails), else empty
  std::string describe() const;  // "late inputs 0.0213 > --max-late-inputs 0.01"
};

std::vector<ThresholdCheck> evaluate(const Summary& summary, const Thresholds& thresholds);
bool all_passed(const std::vector<ThresholdCheck>& checks);

}  // namespace tickwire::bots
