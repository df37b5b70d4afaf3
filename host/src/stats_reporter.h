#pragma once
// Periodic server stats: a readable line in the log and, optionally, one
// JSON object per line in a file for tools (the bots' report and memory
// soaks read it). Tick times come from the server's own tick timings.

#include <spdlog/logger.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/server/server.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::host {

class StatsReporter {
 public:
  // An interval of zero or less reports nothing.
  StatsReporter(Duration interval, const std::string& json_path, std::shared_ptr<spdlog::logger> log, Time now);
  // The game named in every JSON line.
  void set_game(std::string name, std::string version);
  bool json_ok() const { return !json_requested_ || json_.good(); }

  // Adds the timings of the ticks run since the last call.
  void add_timings(const std::vector<server::TickTiming>& timings);
  // Whether an interval has passed since the last report (never when
  // reporting is off), so the caller gathers stats only when needed.
  bool due(Time now) const { return interval_ > Duration::zero() && now - last_ >= interval_; }
  void report(const server::ServerStats& stats, const transport::ValidationStats& validation, Time now);
  // The same, with what crossed the transport's socket since it started.
  void report(const server::ServerStats& stats, const transport::ValidationStats& validation,
              const transport::WireStats& wire, Time now);

 private:
  Duration interval_;
  std::shared_ptr<spdlog::logger> log_;
  bool json_requested_;
  std::ofstream json_;
  Time last_;
  Time start_;
  std::vector<std::int64_t> tick_us_;
  std::vector<std::int64_t> late_us_;
  server::ServerStats previous_;
  std::optional<transport::WireStats> previous_wire_;
  std::string game_;
  std::string game_version_;
};

}  // namespace tickwire::host
