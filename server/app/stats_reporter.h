#pragma once
// Periodic server stats: a readable line in the log and, optionally, one
// JSON object per line in a file for tools (the bots' report reads it).

#include <spdlog/logger.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/server/server.h"

namespace tickwire::server_app {

class StatsReporter {
 public:
  StatsReporter(Duration interval, const std::string& json_path, std::shared_ptr<spdlog::logger> log, Time now);
  bool json_ok() const { return !json_requested_ || json_.good(); }

  // Records how long one update that ran ticks took; an overrun is one
  // that took longer than a tick interval.
  void record_tick(Duration took, bool overran);
  void maybe_report(const server::ServerStats& stats, Time now);

 private:
  Duration interval_;
  std::shared_ptr<spdlog::logger> log_;
  bool json_requested_;
  std::ofstream json_;
  Time last_;
  Time start_;
  std::vector<std::int64_t> tick_us_;
  std::uint64_t overruns_ = 0;
  server::ServerStats previous_;
};

}  // namespace tickwire::server_app
