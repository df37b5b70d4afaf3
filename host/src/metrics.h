#pragma once
// Prometheus metrics of the server process, every name prefixed tickwire_
// (docs/operations.md lists them). The loop feeds the tick timings, the
// server's stats and its events; an HTTP endpoint on its own threads
// serves them at /metrics.
//
// Mispredictions are what clients report (core/client_report.h): claims,
// summed over clients, published under a name that says so.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agones_agent.h"
#include "lifecycle_log.h"
#include "tickwire/core/result.h"
#include "tickwire/server/server.h"

namespace prometheus {
class Counter;
class Exposer;
class Gauge;
class Histogram;
class Registry;
}  // namespace prometheus

namespace tickwire::host {

class Metrics {
 public:
  // The build info names Tickwire's version and the game's; the Agones
  // series exist when info.agones is set.
  explicit Metrics(const StartInfo& info);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  void observe_ticks(const std::vector<server::TickTiming>& timings);
  // Counters advance by what the totals gained since the last call.
  void update(const server::ServerStats& stats);
  void count_event(const server::ServerEvent& event);
  void set_resident_bytes(std::uint64_t bytes);
  // Counters advance to the agent's totals.
  void update_agones(const AgonesAgent& agent);

  // The exposition text, as a scrape would see it.
  std::string render() const;
  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

 private:
  void add_agones();

  static constexpr std::size_t kErrorCodes = static_cast<std::size_t>(ErrorCode::kIo) + 1;
  // Every transport::DisconnectReason value; the last enumerator is kTokenRequired.
  static constexpr std::size_t kReasons = static_cast<std::size_t>(transport::DisconnectReason::kTokenRequired) + 1;

  std::shared_ptr<prometheus::Registry> registry_;
  server::ServerStats last_;
  prometheus::Histogram* tick_duration_ = nullptr;
  prometheus::Histogram* tick_lateness_ = nullptr;
  prometheus::Gauge* clients_ = nullptr;
  prometheus::Gauge* tick_ = nullptr;
  prometheus::Gauge* resident_ = nullptr;
  prometheus::Counter* ticks_ = nullptr;
  prometheus::Counter* ticks_overrun_ = nullptr;
  prometheus::Counter* ticks_skipped_ = nullptr;
  prometheus::Counter* bytes_in_ = nullptr;
  prometheus::Counter* bytes_out_ = nullptr;
  prometheus::Counter* packets_in_ = nullptr;
  prometheus::Counter* packets_out_ = nullptr;
  prometheus::Counter* snapshots_ = nullptr;
  prometheus::Counter* late_inputs_ = nullptr;
  prometheus::Counter* missing_inputs_ = nullptr;
  prometheus::Counter* rejected_inputs_ = nullptr;
  prometheus::Counter* reported_mispredictions_ = nullptr;
  // Lag compensation's rewind decisions, by outcome.
  prometheus::Counter* view_as_claimed_ = nullptr;
  prometheus::Counter* view_replaced_ = nullptr;
  prometheus::Counter* view_clamped_ = nullptr;
  std::array<prometheus::Counter*, kErrorCodes> bad_packets_{};
  prometheus::Counter* connected_ = nullptr;
  std::array<prometheus::Counter*, kReasons> denied_{};
  std::array<prometheus::Counter*, kReasons> disconnected_{};
  prometheus::Counter* agones_allocations_ = nullptr;
  std::array<prometheus::Counter*, kAgonesCalls> agones_failures_{};
  std::uint64_t last_allocations_ = 0;
  std::array<std::uint64_t, kAgonesCalls> last_failures_{};
};

// Serves a registry over HTTP at /metrics until destroyed. Port 0 picks a
// free port; port() says which.
class MetricsEndpoint {
 public:
  static Result<std::unique_ptr<MetricsEndpoint>> start(const std::string& bind, std::uint16_t port,
                                                        const std::shared_ptr<prometheus::Registry>& registry);
  ~MetricsEndpoint();
  std::uint16_t port() const { return port_; }
  // The scrape URL, for the logs.
  std::string url() const;

 private:
  MetricsEndpoint(std::unique_ptr<prometheus::Exposer> exposer, std::string bind, std::uint16_t port);
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string bind_;
  std::uint16_t port_;
};

}  // namespace tickwire::host
