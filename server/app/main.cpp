// tickwire-server: the dedicated server binary, hosting the arena reference
// game. Owns the loop and the clock; everything below it takes time as an
// argument.

#include <spdlog/sinks/stdout_sinks.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "agones.h"
#include "lifecycle_log.h"
#include "loop_clock.h"
#include "memory.h"
#include "metrics.h"
#include "options.h"
#include "stats_reporter.h"
#include "tickwire/arena/arena.h"
#include "tickwire/core/logging.h"
#include "tickwire/core/network_time.h"
#include "tickwire/server/server.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/transport/enet_transport.h"

#ifndef TICKWIRE_VERSION
#define TICKWIRE_VERSION "unknown"
#endif

namespace {

using namespace tickwire;
using server_app::LocalClock;

std::atomic<int> g_signal{0};  // the one piece of process state a signal may touch

void on_signal(int sig) { g_signal.store(sig); }

// The tick rates the game runs at, for a message that says what would work.
std::string supported_rates(const prediction::NetGame& game) {
  std::string rates;
  for (std::uint32_t r = 1; r <= NetworkTime::kMaxTickRate; ++r) {
    if (game.supports_tick_rate(r)) rates += (rates.empty() ? "" : ", ") + std::to_string(r);
  }
  return rates;
}

int fail(int code, const std::string& message) {
  std::cerr << "tickwire-server: " << message << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = server_app::parse_options(argc, argv);
  if (auto* exit = std::get_if<server_app::ParseExit>(&parsed)) {
    (exit->code == 0 ? std::cout : std::cerr) << exit->message << "\n";
    return exit->code;
  }
  const auto& opt = std::get<server_app::Options>(parsed);

  const auto level = parse_log_level(opt.log_level).value();
  const auto format = parse_log_format(opt.log_format).value();
  Logging logging(level, format);
  auto log = logging.get("server");
  // Its own sink, as it formats its lines itself; stderr sinks share one
  // lock, so lines from both never interleave.
  server_app::LifecycleLog lifecycle(format, level, std::make_shared<spdlog::sinks::stderr_sink_mt>(), log);
  const LocalClock clock;
  auto agones_config = server_app::agones_config(opt.agones, std::getenv("AGONES_SDK_HTTP_PORT"));
  if (!agones_config) return fail(2, agones_config.error().detail);

  arena::GameConfig game_config;
  game_config.nearest_entities = opt.nearest;
  game_config.max_rewind = Duration::millis(opt.max_rewind_ms);
  game_config.max_hittable = static_cast<std::uint32_t>(opt.max_clients);
  arena::Game game(game_config);

  server::ServerConfig config;
  config.tick_rate = opt.tick_rate;
  config.send_rate = opt.send_rate;
  config.max_clients = opt.max_clients;
  config.workers = opt.workers;
  config.schema_hash = opt.schema_hash;
  config.max_snapshot_bytes = opt.snapshot_bytes;
  config.snapshot_models_in_flight = opt.models_in_flight;
  config.snapshot_views_in_flight = opt.views_in_flight;
  config.adaptive_snapshot_models = opt.adaptive_models;
  std::shared_ptr<snapshot::CodebookTrainer> trainer;  // with --train-codebook
  if (!opt.codebook.empty()) {
    auto book = snapshot::load_codebook(opt.codebook, game.schema());
    if (!book) return fail(2, "--codebook " + book.error().detail);
    config.snapshot_codebook = std::move(book).value();
  }
  if (!opt.train_codebook.empty()) {
    // Opened now, so a path that cannot be written fails at start, not
    // after the playtest; left empty (no codebook) until the server stops.
    if (!std::ofstream(opt.train_codebook, std::ios::binary | std::ios::trunc)) {
      return fail(2, "--train-codebook " + opt.train_codebook + ": cannot be written");
    }
    trainer = std::make_shared<snapshot::CodebookTrainer>(game.schema());
    config.codebook_trainer = trainer;
  }
  config.max_catch_up_ticks = opt.max_catch_up_ticks;
  config.max_rewind = Duration::millis(opt.max_rewind_ms);
  const auto seconds = [](double s) { return Duration::micros(static_cast<std::int64_t>(s * 1e6)); };
  config.client_timeout = seconds(opt.timeout_s);
  config.handshake_timeout = seconds(opt.handshake_timeout_s);
  config.clock = [&clock] { return clock.now(); };
  config.phase_clock = server_app::process_cpu_time;
  config.logger = log;
  // Checked before the socket is bound, so a bad setting never holds a port.
  if (!game.supports_tick_rate(opt.tick_rate)) {
    return fail(2, "--tick-rate " + std::to_string(opt.tick_rate) + ": the arena game runs only at " +
                       supported_rates(game) + " ticks per second");
  }
  try {
    config.validate();
  } catch (const std::invalid_argument& e) {
    return fail(2, std::string("invalid settings: ") + e.what());
  }

  const server_app::StartInfo info{TICKWIRE_VERSION, opt.address().to_string(), opt.tick_rate,
                                   opt.send_rate,    opt.max_clients,           agones_config->has_value()};
  lifecycle.start(info);

  server_app::StatsReporter stats(Duration::micros(static_cast<std::int64_t>(opt.stats_interval_s * 1e6)),
                                  opt.stats_json, log, clock.now());
  if (!stats.json_ok()) return fail(2, "cannot write --stats-json file " + opt.stats_json);

  std::optional<server_app::Metrics> metrics;
  std::unique_ptr<server_app::MetricsEndpoint> endpoint;
  if (opt.metrics_port) {
    metrics.emplace(TICKWIRE_VERSION, opt.tick_rate, opt.max_clients);
    auto started = server_app::MetricsEndpoint::start(opt.metrics_bind, *opt.metrics_port, metrics->registry());
    if (!started) {
      return fail(1, "cannot serve metrics on " + opt.metrics_bind + ":" + std::to_string(*opt.metrics_port) + ": " +
                         started.error().detail + " (choose another with --metrics-port)");
    }
    endpoint = std::move(started).value();
  }

  transport::EnetConfig net;
  net.bind = opt.address();
  // A few slots beyond max_clients, so that a client turned away because
  // the server is full hears why instead of timing out.
  net.max_peers = opt.max_clients + 8;
  net.max_peers_per_ip = opt.max_peers_per_ip;
  net.timeout = config.handshake_timeout;
  net.validation.max_pending = opt.max_pending_connects;
  net.validation.max_pending_per_host = opt.max_pending_per_ip;
  net.validation.max_challenges_per_second = opt.max_challenges_per_second;
  if (!opt.token_key_file.empty()) {
    auto key = transport::TokenKey::load(opt.token_key_file);
    if (!key) return fail(2, "--token-key-file: " + key.error().detail);
    net.validation.token_key = key.value();
    net.validation.token_address = opt.token_address();
  }
  auto transport = transport::EnetTransport::create(net);
  if (!transport) {
    const std::string& why = transport.error().detail;
    const bool in_use = why.find("in use") != std::string::npos;
    return fail(1, "cannot listen on " + opt.address().to_string() + ": " + why +
                       (in_use ? " (another server on this port? choose one with --port)" : ""));
  }
  transport::EnetTransport* enet = transport->get();

  std::optional<server::Server> server_storage;
  try {
    server_storage.emplace(std::move(transport).value(), game, config, clock.now());
  } catch (const std::invalid_argument& e) {
    return fail(2, std::string("invalid settings: ") + e.what());
  }
  server::Server& server = *server_storage;

  // The kernel may defer a sleeper's wake-up by its timer slack (50 us by
  // default) to batch wake-ups; ticks should start on time instead.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  // A peer closing an HTTP connection mid-write must not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<server_app::AgonesAgent> agones;
  if (*agones_config) {
    auto agones_options = **agones_config;
    agones_options.health_interval =
        std::chrono::milliseconds(static_cast<std::int64_t>(opt.agones_health_interval_s * 1000.0));
    agones = std::make_unique<server_app::AgonesAgent>(agones_options, logging.get("agones"));
    agones->request(server_app::AgonesAgent::Call::kReady);
  }
  lifecycle.ready(info, server.local_address().value_or(opt.address()).to_string(),
                  endpoint ? std::optional<std::string>(endpoint->url()) : std::nullopt);

  bool allocated = false;
  const auto on_event = [&](const server::ServerEvent& e) {
    lifecycle.client_event(e);
    if (metrics) metrics->count_event(e);
    if (agones && opt.agones_allocate_on_join && !allocated && e.type == server::ServerEvent::Type::kClientConnected) {
      agones->request(server_app::AgonesAgent::Call::kAllocate);
      allocated = true;
    }
  };
  // The resident set is read from /proc, so not on every tick.
  Time next_rss = clock.now();
  server_app::MemoryTrimmer trimmer(Duration::seconds(10), clock.now());

  const Duration run_for = Duration::micros(static_cast<std::int64_t>(opt.duration_s * 1e6));
  const Time started = clock.now();
  std::vector<server::TickTiming> timings;
  while (g_signal.load() == 0) {
    const Time now = clock.now();
    if (run_for > Duration::zero() && now - started >= run_for) break;
    server.update(now);
    server.take_tick_timings(timings);
    stats.add_timings(timings);
    if (stats.due(now))
      stats.report(server.stats(), enet->validation_stats(), enet->wire_stats().value_or(transport::WireStats{}), now);
    if (metrics && !timings.empty()) {
      metrics->observe_ticks(timings);
      metrics->update(server.stats());
      if (now >= next_rss) {
        metrics->set_resident_bytes(server_app::resident_set_kb() * 1024);
        next_rss = now + Duration::seconds(1);
      }
    }
    while (auto event = server.poll_event()) on_event(*event);
    // Between ticks, so that a trim delays no tick's work.
    if (trimmer.due(now)) server_app::MemoryTrimmer::trim();
    server_app::wait_for_tick_or_traffic(*enet, clock, server.next_tick_time());
  }

  const int sig = g_signal.load();
  lifecycle.shutdown(sig == SIGTERM ? "sigterm" : sig == SIGINT ? "sigint" : "duration");
  // Asked first, so Agones stops routing players here while clients drain.
  if (agones) agones->request(server_app::AgonesAgent::Call::kShutdown);
  server.shutdown(clock.now());
  // Keep serving briefly so the disconnects reach the clients and their
  // acknowledgements come back; well inside the 2 s budget.
  const Time deadline = clock.now() + Duration::millis(300);
  for (Time now = clock.now(); deadline - now >= Duration::millis(1); now = clock.now()) {
    server.update(now);
    while (auto event = server.poll_event()) on_event(*event);
    enet->wait_for_traffic(std::min(deadline - now, Duration::millis(5)));
  }
  const auto s = server.stats();
  if (metrics) metrics->update(s);
  lifecycle.stopped(s);
  if (trainer) {
    if (auto ok = trainer->save(opt.train_codebook, game.schema()); !ok) {
      log->error("--train-codebook {}", ok.error().detail);
      return 1;
    }
    log->info("codebook trained on {} snapshots written to {}", trainer->packets(), opt.train_codebook);
  }
  // Bounded so SIGTERM still ends the process promptly without a sidecar.
  if (agones) agones->finish(std::chrono::milliseconds(1000));
  return 0;
}
