#include "options.h"

#include <CLI/CLI.hpp>

#include "tickwire/core/network_time.h"

namespace tickwire::server_app {

std::variant<Options, ParseExit> parse_options(int argc, const char* const* argv) {
  Options o;
  CLI::App app{
      "tickwire-server: the Tickwire dedicated server.\n"
      "Runs a fixed-tick authoritative simulation and serves clients over UDP.",
      "tickwire-server"};
  app.set_config("--config", "", "Read options from a TOML or INI file (keys are the long option names)");
  app.add_option("--bind", o.bind, "Address to listen on")->capture_default_str();
  app.add_option("--port", o.port, "UDP port to listen on")->capture_default_str()->check(CLI::Range(1, 65535));
  app.add_option("--tick-rate", o.tick_rate, "Simulation ticks per second")
      ->capture_default_str()
      ->check(CLI::Range(1u, NetworkTime::kMaxTickRate));
  app.add_option("--send-rate", o.send_rate, "Snapshots per second to each client; must divide --tick-rate")
      ->capture_default_str()
      ->check(CLI::Range(1u, NetworkTime::kMaxTickRate));
  app.add_option("--max-clients", o.max_clients, "Most clients connected at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 4000));
  app.add_option("--log-level", o.log_level, "trace, debug, info, warn, error, critical or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--log-format", o.log_format, "text or json (one JSON object per line)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--stats-interval", o.stats_interval_s, "Seconds between stats lines; 0 turns them off")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--stats-json", o.stats_json, "Append one JSON line of stats per interval to this file");
  app.add_option("--duration", o.duration_s, "Stop by itself after this many seconds; 0 runs until SIGINT/SIGTERM")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--schema-hash", o.schema_hash, "Override the game schema hash in the protocol fingerprint (testing)")
      ->group("Advanced");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return ParseExit{0, app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return ParseExit{0, app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::FileError& e) {
    return ParseExit{2, std::string("tickwire-server: --config: ") + e.what()};
  } catch (const CLI::ParseError& e) {
    return ParseExit{2, std::string("tickwire-server: ") + e.what() + "\nRun with --help for the options."};
  }
  if (o.send_rate > o.tick_rate || o.tick_rate % o.send_rate != 0) {
    return ParseExit{2, "tickwire-server: --send-rate " + std::to_string(o.send_rate) + " must divide --tick-rate " +
                            std::to_string(o.tick_rate) + " (for example 60 and 30)"};
  }
  if (o.bind.empty()) return ParseExit{2, "tickwire-server: --bind must not be empty"};
  return o;
}

}  // namespace tickwire::server_app
