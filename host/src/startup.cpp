#include "startup.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <variant>

#include "memory.h"
#include "signals.h"
#include "tickwire/core/network_time.h"

namespace tickwire::host {
namespace {

Duration seconds(double s) { return Duration::micros(static_cast<std::int64_t>(s * 1e6)); }

// The tick rates the game runs at, for a message that says what would work.
std::string supported_rates(const prediction::NetGame& game) {
  std::string rates;
  for (std::uint32_t r = 1; r <= NetworkTime::kMaxTickRate; ++r) {
    if (game.supports_tick_rate(r)) rates += (rates.empty() ? "" : ", ") + std::to_string(r);
  }
  return rates;
}

void start_logging(Session& s) {
  const auto level = parse_log_level(s.opt.log_level).value();
  const auto format = parse_log_format(s.opt.log_format).value();
  s.logging = std::make_unique<Logging>(level, format);
  s.log = s.logging->get("server");
  // Its own sink, as it formats its lines itself; stderr sinks share one
  // lock, so lines from both never interleave.
  s.lifecycle = std::make_unique<LifecycleLog>(format, level, std::make_shared<spdlog::sinks::stderr_sink_mt>(), s.log);
}

// The codebook options: a file to code with, or a trainer for this run.
std::optional<Failure> snapshot_coding(Session& s, server::ServerConfig& config) {
  const Options& opt = s.opt;
  if (!opt.codebook.empty()) {
    auto book = snapshot::load_codebook(opt.codebook, s.game.schema());
    if (!book) return Failure{2, "--codebook " + book.error().detail};
    config.snapshot_codebook = std::move(book).value();
  }
  if (!opt.train_codebook.empty()) {
    // Opened now, so a path that cannot be written fails at start, not
    // after the playtest. Appending leaves a file already there as it is
    // until the trained codebook replaces it at the end; one the check
    // creates is removed again if the server does not start.
    std::error_code ignored;
    const bool existed = std::filesystem::exists(opt.train_codebook, ignored);
    if (!std::ofstream(opt.train_codebook, std::ios::binary | std::ios::app)) {
      return Failure{2, "--train-codebook " + opt.train_codebook + ": cannot be written"};
    }
    s.codebook_probe_created = !existed;
    s.trainer = std::make_shared<snapshot::CodebookTrainer>(s.game.schema());
    config.codebook_trainer = s.trainer;
  }
  return std::nullopt;
}

std::variant<server::ServerConfig, Failure> server_config(Session& s) {
  const Options& opt = s.opt;
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
  if (auto failed = snapshot_coding(s, config)) return *failed;
  config.max_catch_up_ticks = opt.max_catch_up_ticks;
  config.max_rewind = Duration::millis(opt.max_rewind_ms);
  config.client_timeout = seconds(opt.timeout_s);
  config.handshake_timeout = seconds(opt.handshake_timeout_s);
  config.clock = [&clock = s.clock] { return clock.now(); };
  config.phase_clock = process_cpu_time;
  config.logger = s.log;
  if (!s.game.supports_tick_rate(opt.tick_rate)) {
    return Failure{2, "--tick-rate " + std::to_string(opt.tick_rate) + ": " + s.info.game + " runs only at " +
                          supported_rates(s.game) + " ticks per second"};
  }
  try {
    config.validate();
  } catch (const std::invalid_argument& e) {
    return Failure{2, std::string("invalid settings: ") + e.what()};
  }
  return config;
}

std::optional<Failure> start_metrics(Session& s) {
  if (!s.opt.metrics_port) return std::nullopt;
  s.metrics.emplace(s.info);
  auto started = MetricsEndpoint::start(s.opt.metrics_bind, *s.opt.metrics_port, s.metrics->registry());
  if (!started) {
    return Failure{1, "cannot serve metrics on " + s.opt.metrics_bind + ":" + std::to_string(*s.opt.metrics_port) +
                          ": " + started.error().detail + " (choose another with --metrics-port)"};
  }
  s.endpoint = std::move(started).value();
  return std::nullopt;
}

// Operators hand the public key to clients (--server-key); the seed is
// never logged.
void log_session_security(Session& s, const transport::EnetConfig& net) {
  const std::string key = net.validation.server_identity->public_key().to_hex();
  if (s.opt.server_identity) {
    s.log->info("server key {} (from {}): clients pin it with --server-key", key, s.opt.server_identity_file);
  } else {
    s.log->info(
        "server key {} (fresh for this run: clients cannot pin it across restarts; keep one with "
        "--server-identity FILE)",
        key);
  }
  if (s.opt.plaintext) {
    s.log->warn("--plaintext: clients that ask for unencrypted sessions are admitted (debugging only)");
  }
}

std::variant<std::unique_ptr<transport::EnetTransport>, Failure> open_transport(Session& s) {
  const Options& opt = s.opt;
  auto config = transport_config(opt);
  if (auto* failed = std::get_if<Failure>(&config)) return *failed;
  const auto& net = std::get<transport::EnetConfig>(config);
  log_session_security(s, net);
  auto transport = transport::EnetTransport::create(net);
  if (!transport) {
    const std::string& why = transport.error().detail;
    const bool in_use = why.find("in use") != std::string::npos;
    return Failure{1, "cannot listen on " + opt.address().to_string() + ": " + why +
                          (in_use ? " (another server on this port? choose one with --port)" : "")};
  }
  return std::move(transport).value();
}

void start_agones(Session& s) {
  if (!s.agones_config) return;
  AgonesConfig config = *s.agones_config;
  config.health_interval =
      std::chrono::milliseconds(static_cast<std::int64_t>(s.opt.agones_health_interval_s * 1000.0));
  config.counter = s.opt.agones_counter;
  config.list = s.opt.agones_list;
  s.agones = std::make_unique<AgonesAgent>(config, s.logging->get("agones"));
  s.agones->request(AgonesAgent::Call::kReady);
  s.agones->set_capacity(s.opt.max_clients);
}

std::optional<Failure> start(Session& s) {
  start_logging(s);
  auto agones = agones_config(s.opt.agones, std::getenv("AGONES_SDK_HTTP_PORT"));
  if (!agones) return Failure{2, agones.error().detail};
  s.agones_config = agones.value();
  s.info.agones = s.agones_config.has_value();

  auto config = server_config(s);
  if (auto* failed = std::get_if<Failure>(&config)) return *failed;
  s.lifecycle->start(s.info);

  s.stats = std::make_unique<StatsReporter>(seconds(s.opt.stats_interval_s), s.opt.stats_json, s.log, s.clock.now());
  s.stats->set_game(s.info.game, s.info.game_version);
  if (!s.stats->json_ok()) return Failure{2, "cannot write --stats-json file " + s.opt.stats_json};
  if (auto failed = start_metrics(s)) return failed;

  auto transport = open_transport(s);
  if (auto* failed = std::get_if<Failure>(&transport)) return *failed;
  auto& enet = std::get<std::unique_ptr<transport::EnetTransport>>(transport);
  s.enet = enet.get();
  try {
    s.server.emplace(std::move(enet), s.game, std::get<server::ServerConfig>(std::move(config)), s.clock.now());
  } catch (const std::invalid_argument& e) {
    return Failure{2, std::string("invalid settings: ") + e.what()};
  }

  s.process.emplace();
  start_agones(s);
  s.lifecycle->ready(s.info, s.server->local_address().value_or(s.opt.address()).to_string(),
                     s.endpoint ? std::optional<std::string>(s.endpoint->url()) : std::nullopt);
  return std::nullopt;
}

}  // namespace

std::variant<transport::EnetConfig, Failure> transport_config(const Options& opt) {
  transport::EnetConfig net;
  net.bind = opt.address();
  // A few slots beyond max_clients, so that a client turned away because
  // the server is full hears why instead of timing out.
  net.max_peers = opt.max_clients + 8;
  net.max_peers_per_ip = opt.max_peers_per_ip;
  net.timeout = seconds(opt.handshake_timeout_s);
  net.validation.max_pending = opt.max_pending_connects;
  net.validation.max_pending_per_host = opt.max_pending_per_ip;
  net.validation.max_challenges_per_second = opt.max_challenges_per_second;
  if (!opt.token_key_file.empty()) {
    auto key = transport::TokenKey::load(opt.token_key_file);
    if (!key) return Failure{2, "--token-key-file: " + key.error().detail};
    net.validation.token_key = key.value();
    net.validation.token_address = opt.token_address();
  }
  net.validation.server_identity = opt.server_identity ? *opt.server_identity : transport::ServerIdentity::generate();
  net.plaintext = opt.plaintext;
  return net;
}

std::optional<Failure> start_session(Session& s) {
  auto failed = start(s);
  if (failed && s.codebook_probe_created) {
    // Nothing was trained: leave no empty file to pass for a codebook.
    std::error_code ignored;
    std::filesystem::remove(s.opt.train_codebook, ignored);
  }
  return failed;
}

}  // namespace tickwire::host
