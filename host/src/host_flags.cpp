// The host's own flags, in their --help groups.
#include <CLI/CLI.hpp>

#include "cli.h"
#include "tickwire/core/network_time.h"

namespace tickwire::host {
namespace {

constexpr const char* kNetwork = "Network";
constexpr const char* kSimulation = "Simulation";
constexpr const char* kReporting = "Logging and stats";
constexpr const char* kOperations = "Operations (metrics, Agones)";
constexpr const char* kAdvanced = "Advanced (tuning and testing)";
constexpr const char* kSecurity = "Security (connect tokens, encryption, connection limits)";

}  // namespace

void add_host_flags(CLI::App& app, Options& o, RawFlags& raw) {
  app.add_option("--duration", o.duration_s, "Stop by itself after this many seconds; 0 runs until SIGINT/SIGTERM")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(quiet(CLI::Range(0.0, 1e7)));

  app.add_option("--write-schema", o.write_schema,
                 "Write the game's schema file (docs/schema-file.md) to FILE and exit, without serving: what "
                 "tickwire-bots --thin --schema FILE needs to load-test this server with no game code")
      ->type_name("FILE");

  app.add_option("--bind", o.bind, "Local address to listen on")
      ->type_name("ADDR")
      ->capture_default_str()
      ->group(kNetwork);
  app.add_option("--port", o.port, "UDP port to listen on (1-65535)")
      ->type_name("PORT")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1, 65535)))
      ->group(kNetwork);
  app.add_option("--max-clients", o.max_clients, "Most clients connected at once (1-4000)")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1, 4000)))
      ->group(kNetwork);

  app.add_option("--timeout", o.timeout_s, "Seconds of silence after which a client is dropped")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1.0, 600.0)))
      ->group(kNetwork);
  app.add_option("--handshake-timeout", o.handshake_timeout_s,
                 "Seconds a handshake, or a reliable message waiting for its acknowledgement, may take; raise it "
                 "for players with round trips of seconds and heavy loss")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1.0, 600.0)))
      ->group(kNetwork);

  app.add_option("--tick-rate", o.tick_rate, "Simulation ticks per second (a game may run at some rates only)")
      ->type_name("HZ")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1u, NetworkTime::kMaxTickRate)))
      ->group(kSimulation);
  app.add_option("--send-rate", o.send_rate, "Snapshots per second to each client; must divide --tick-rate")
      ->type_name("HZ")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1u, NetworkTime::kMaxTickRate)))
      ->group(kSimulation);
  app.add_option("--workers", o.workers,
                 "Threads that encode clients' snapshots, this one included; the simulation stays on one")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1u, 64u)))
      ->group(kSimulation);

  app.add_option("--log-level", o.log_level, "trace, debug, info, warn, error, critical or off")
      ->type_name("LEVEL")
      ->capture_default_str()
      ->check(quiet(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"})))
      ->group(kReporting);
  app.add_option("--log-format", o.log_format, "text, or json for one JSON object per line")
      ->type_name("FORMAT")
      ->capture_default_str()
      ->check(quiet(CLI::IsMember({"text", "json"})))
      ->group(kReporting);
  app.add_option("--stats-interval", o.stats_interval_s, "Seconds between stats lines; 0 turns them off")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(quiet(CLI::Range(0.0, 3600.0)))
      ->group(kReporting);
  app.add_option("--stats-json", o.stats_json, "Append one JSON line of stats per interval to FILE")
      ->type_name("FILE")
      ->group(kReporting);

  raw.metrics_port_option =
      app.add_option("--metrics-port", raw.metrics_port,
                     "Serve Prometheus metrics over HTTP on this TCP port at /metrics (0: any free port)")
          ->type_name("PORT")
          ->check(quiet(CLI::Range(0, 65535)))
          ->group(kOperations);
  app.add_option("--metrics-bind", o.metrics_bind, "Local address of the metrics endpoint")
      ->type_name("ADDR")
      ->capture_default_str()
      ->group(kOperations);
  app.add_flag("--agones", o.agones,
               "Report to the Agones SDK sidecar (Ready, Health, Shutdown); on by itself when AGONES_SDK_HTTP_PORT "
               "is set")
      ->group(kOperations);
  app.add_option("--agones-health-interval", o.agones_health_interval_s, "Seconds between Agones Health pings")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(quiet(CLI::Range(0.1, 300.0)))
      ->group(kOperations);
  app.add_flag("--agones-allocate-on-join", o.agones_allocate_on_join,
               "Mark the game server Allocated when the first client joins")
      ->group(kOperations);
  app.add_option("--agones-counter", o.agones_counter,
                 "Agones Counter kept at the number of connected players, its capacity at --max-clients (the "
                 "GameServer must declare it; empty: none)")
      ->type_name("KEY")
      ->capture_default_str()
      ->group(kOperations);
  app.add_option("--agones-list", o.agones_list,
                 "Agones List kept holding the connected players' ids (the GameServer must declare it; empty: none)")
      ->type_name("KEY")
      ->capture_default_str()
      ->group(kOperations);

  app.add_option("--snapshot-bytes", o.snapshot_bytes, "Largest snapshot payload per packet (64-1140)")
      ->type_name("BYTES")
      ->capture_default_str()
      ->check(quiet(CLI::Range(std::size_t{64}, std::size_t{1140})))
      ->group(kAdvanced);
  app.add_option("--models-in-flight", o.models_in_flight,
                 "Snapshots in flight per client that keep their coding models (0-4096; 0: all): memory per client "
                 "on long round trips against a little bandwidth")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(std::uint32_t{0}, std::uint32_t{4096})))
      ->group(kAdvanced);
  app.add_option("--views-in-flight", o.views_in_flight,
                 "Snapshots in flight per client whose state is kept as a possible baseline (0 or 2-4096; 0: all): "
                 "memory per client on long round trips against a baseline a tick or two older")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(std::uint32_t{0}, std::uint32_t{4096})))
      ->check(quiet(CLI::Validator(
          [](const std::string& v) { return v == "1" ? std::string("must be 0 or at least 2") : std::string(); }, "")))
      ->group(kAdvanced);
  auto* codebook =
      app.add_option("--codebook", o.codebook,
                     "Code snapshots with this codebook (made by --train-codebook) instead of the one the game ships; "
                     "clients must hold the same file, or they are denied at connect")
          ->type_name("FILE")
          ->group(kAdvanced);
  auto* adaptive = app.add_flag("--adaptive-models", o.adaptive_models,
                                "Code snapshots with models adapted per client instead of the game's codebook: fewer "
                                "bytes when the traffic is unlike the codebook's training, more CPU per client; "
                                "clients must do the same (tickwire-bots --adaptive-models)")
                       ->excludes(codebook)
                       ->group(kAdvanced);
  app.add_option("--train-codebook", o.train_codebook,
                 "Train a codebook on the snapshots of this run and write it to FILE when the server stops (the run "
                 "codes with adaptive models: clients need --adaptive-models)")
      ->type_name("FILE")
      ->excludes(codebook)
      ->excludes(adaptive)
      ->group(kAdvanced);
  app.add_option("--max-rewind-ms", o.max_rewind_ms,
                 "Lag compensation: how far back a hitscan shot is judged (0-1000); sizes the hit history")
      ->type_name("MS")
      ->capture_default_str()
      ->check(quiet(CLI::Range(0, 1000)))
      ->group(kAdvanced);
  app.add_option("--max-catch-up-ticks", o.max_catch_up_ticks,
                 "Most ticks run back to back after a stall; later ones are skipped and counted")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(1, 1000)))
      ->group(kAdvanced);
  app.add_option("--token-key-file", o.token_key_file,
                 "Admit only clients with a connect token minted under the key in FILE (64 hex digits)")
      ->type_name("FILE")
      ->check(quiet(CLI::ExistingFile))
      ->group(kSecurity);
  app.add_option("--public-address", o.public_address,
                 "HOST:PORT that connect tokens name this server by (default: --bind and --port)")
      ->type_name("HOST:PORT")
      ->group(kSecurity);
  app.add_option("--server-identity", o.server_identity_file,
                 "Sign every handshake with the identity in FILE (made by tickwire-token identity), so clients can "
                 "pin its public key with --server-key; default: a fresh identity for each run")
      ->type_name("FILE")
      ->group(kSecurity);
  app.add_flag("--plaintext", o.plaintext,
               "Debugging only: also admit clients that ask for unencrypted sessions (the others stay encrypted)")
      ->group(kSecurity);
  app.add_option("--max-peers-per-ip", o.max_peers_per_ip, "Most connections from one IP address; 0: no cap")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(std::size_t{0}, std::size_t{4000})))
      ->group(kSecurity);
  app.add_option("--max-pending-connects", o.max_pending_connects,
                 "Most addresses that passed the challenge but have not connected yet")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(std::size_t{1}, std::size_t{4096})))
      ->group(kSecurity);
  app.add_option("--max-pending-per-ip", o.max_pending_per_ip, "The same, from one IP address")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(std::size_t{1}, std::size_t{4096})))
      ->group(kSecurity);
  app.add_option("--max-challenges-per-second", o.max_challenges_per_second,
                 "Connect challenges answered per second, in all; more are dropped unanswered")
      ->type_name("N")
      ->capture_default_str()
      ->check(quiet(CLI::Range(std::uint32_t{1}, std::uint32_t{1000000})))
      ->group(kSecurity);
  raw.schema_hash_option =
      app.add_option("--schema-hash", raw.schema_hash, "Use this schema hash in the protocol fingerprint (testing)")
          ->type_name("HASH")
          ->group(kAdvanced);
}

}  // namespace tickwire::host
