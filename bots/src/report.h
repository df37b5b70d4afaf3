#pragma once
// What a run produced, and its three renderings: the summary table on
// stdout, the JSON report (the same figures plus the per-second series)
// and a self-contained HTML page of plots (inline SVG, no scripts, no
// external files, so it can be attached to a ticket as is).

#include <cstdint>
#include <string>
#include <vector>

#include "evil_scripts.h"
#include "metrics.h"
#include "server_stats.h"
#include "thresholds.h"

namespace tickwire::bots {

struct RunInfo {
  std::string server;  // HOST:PORT
  std::string script;
  std::string link;  // "none", or the conditions applied inside the bots
  std::size_t bots = 0;
  double duration_s = 0.0;
  double ramp_s = 0.0;
  std::uint64_t seed = 0;
  int frame_rate = 0;
  std::uint32_t tick_rate = 0;            // the server's, once a bot heard it
  std::string program = "tickwire-bots";  // the bots binary, naming the report
  std::vector<std::string> type_names{};  // the schema's, by TypeId value: keys of mispredictions_by_type
};

struct Report {
  RunInfo run;
  Summary summary;
  std::vector<SeriesPoint> series;
  std::vector<ServerSample> server;     // empty without --server-stats
  std::vector<EvilScriptOutcome> evil;  // empty without evil bots
  std::vector<ThresholdCheck> checks;
  bool passed() const { return all_passed(checks); }
};

std::string summary_text(const Report& report);
std::string to_json(const Report& report);
std::string to_html(const Report& report);

}  // namespace tickwire::bots
