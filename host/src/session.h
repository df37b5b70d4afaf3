#pragma once
// Everything a running server is made of, built by start_session
// (startup.h), driven by serve (serve_loop.h) and wound down by
// stop_session (shutdown.h).

#include <spdlog/logger.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "agones_agent.h"
#include "lifecycle_log.h"
#include "loop_clock.h"
#include "metrics.h"
#include "options.h"
#include "signals.h"
#include "stats_reporter.h"
#include "tickwire/core/logging.h"
#include "tickwire/host/server_host.h"
#include "tickwire/server/server.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::host {

// Why the server could not start (or end cleanly): the exit status and
// the message for stderr.
struct Failure {
  int code = 1;
  std::string message;
};

struct Session {
  Session(const Options& options, prediction::NetGame& net_game, StartInfo start_info)
      : opt(options), game(net_game), info(std::move(start_info)) {}

  const Options& opt;
  prediction::NetGame& game;
  StartInfo info;
  LocalClock clock;
  std::unique_ptr<Logging> logging;
  std::shared_ptr<spdlog::logger> log;
  std::unique_ptr<LifecycleLog> lifecycle;
  std::unique_ptr<StatsReporter> stats;
  std::optional<Metrics> metrics;
  std::unique_ptr<MetricsEndpoint> endpoint;
  std::optional<AgonesConfig> agones_config;
  std::unique_ptr<AgonesAgent> agones;
  std::shared_ptr<snapshot::CodebookTrainer> trainer;  // with --train-codebook
  bool codebook_probe_created = false;                 // the file did not exist before the start-up check
  transport::EnetTransport* enet = nullptr;            // owned by the server
  std::optional<server::Server> server;
  std::optional<ProcessSettings> process;  // signal handlers, restored when the session ends

  // Each connected client's value in the Agones List.
  std::map<server::ClientId, std::string> agones_players;
  bool allocated_on_join = false;        // --agones-allocate-on-join has asked
  std::uint64_t allocations_logged = 0;  // Allocated states put in the lifecycle log
};

}  // namespace tickwire::host
