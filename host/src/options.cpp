#include "options.h"

#include <exception>

#include "agones.h"
#include "cli.h"

#ifndef TICKWIRE_VERSION
#define TICKWIRE_VERSION "unknown"
#endif

namespace tickwire::host {
namespace {

constexpr const char* kFooter =
    "Every option can live in a --config file, one per line, keyed by its long name:\n"
    "  port = 7777\n"
    "  tick-rate = 60\n"
    "  stats-json = \"/var/log/tickwire/stats.jsonl\"\n"
    "Flags on the command line override the file. Bad flags and bad values exit with status 2.";

// CLI11 reports an unknown key in a config file as "INI was not able to
// parse KEY", which does not say what is wrong; say it.
std::string config_message(const std::string& what) {
  const std::string prefix = "INI was not able to parse ";
  if (what.rfind(prefix, 0) == 0)
    return "unknown setting '" + what.substr(prefix.size()) +
           "' in the --config file (keys are long option names, such as tick-rate)";
  return what;
}

std::string description(const std::string& program, const GameInfo& game) {
  std::string text = program + ": the Tickwire dedicated server, hosting " + game.name + " " + game.version + ".\n";
  if (!game.description.empty()) text += game.description + "\n";
  return text + "Runs a fixed-tick authoritative simulation and serves clients over UDP.";
}

}  // namespace

std::string program_name(int argc, const char* const* argv, const GameInfo& game) {
  if (argc > 0 && argv != nullptr && argv[0] != nullptr && argv[0][0] != '\0') {
    const std::string path = argv[0];
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return path;
    if (slash + 1 < path.size()) return path.substr(slash + 1);
  }
  return game.name + "-server";
}

std::variant<Options, ParseExit> parse_options(int argc, const char* const* argv, const GameInfo& game,
                                               const std::function<void(GameOptions&)>& add_options) {
  const std::string program = program_name(argc, argv, game);
  const std::string prefix = program + ": ";
  Options o;
  RawFlags raw;
  CLI::App app{description(program, game), program};
  app.footer(kFooter);
  app.set_version_flag("--version", program + " " + TICKWIRE_VERSION + " (" + game.name + " " + game.version + ")");
  app.set_config("--config", "", "Read options from a TOML or INI file (keys are the long option names)")
      ->type_name("FILE");
  app.get_formatter()->column_width(32);
  app.allow_config_extras(CLI::config_extras_mode::error);
  add_host_flags(app, o, raw);
  if (add_options) {
    // A game option that clashes with a host flag (or another of the
    // game's), or has no usable name, is reported, not left to terminate.
    try {
      GameOptions::Impl impl(app, "Game (" + game.name + ")");
      GameOptions options(impl);
      add_options(options);
    } catch (const std::exception& e) {
      return ParseExit{2, prefix + "game option: " + e.what()};
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return ParseExit{0, app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return ParseExit{0, app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::CallForVersion& e) {
    return ParseExit{0, e.what()};
  } catch (const CLI::FileError& e) {
    return ParseExit{2, prefix + "--config: " + e.what()};
  } catch (const CLI::ConfigError& e) {
    return ParseExit{2, prefix + config_message(e.what())};
  } catch (const CLI::ParseError& e) {
    return ParseExit{2, prefix + e.what() + "\nRun with --help for the options."};
  }
  if (raw.schema_hash_option->count() > 0) o.schema_hash = raw.schema_hash;
  if (raw.metrics_port_option->count() > 0) o.metrics_port = raw.metrics_port;
  if (o.send_rate > o.tick_rate || o.tick_rate % o.send_rate != 0) {
    return ParseExit{2, prefix + "--send-rate " + std::to_string(o.send_rate) + " must divide --tick-rate " +
                            std::to_string(o.tick_rate) + " (for example 60 and 30)"};
  }
  if (o.bind.empty()) return ParseExit{2, prefix + "--bind must not be empty"};
  if (o.metrics_bind.empty()) return ParseExit{2, prefix + "--metrics-bind must not be empty"};
  for (const auto& [flag, key] : {std::pair<const char*, const std::string&>{"--agones-counter", o.agones_counter},
                                  std::pair<const char*, const std::string&>{"--agones-list", o.agones_list}}) {
    if (!key.empty() && !valid_agones_key(key)) {
      return ParseExit{2, prefix + flag + " '" + key + "': letters, digits, '.', '_' and '-' only"};
    }
  }
  if (!o.public_address.empty()) {
    if (auto parsed = transport::Address::parse(o.public_address); !parsed) {
      return ParseExit{2, prefix + "--public-address: " + parsed.error().detail};
    }
  }
  if (!o.server_identity_file.empty()) {
    auto identity = transport::ServerIdentity::load(o.server_identity_file);
    if (!identity) return ParseExit{2, prefix + "--server-identity " + identity.error().detail};
    o.server_identity = identity.value();
  }
  if (!o.token_key_file.empty() && o.public_address.empty() && (o.bind == "0.0.0.0" || o.bind == "::")) {
    return ParseExit{2, prefix +
                            "--token-key-file needs --public-address HOST:PORT (the address tokens name "
                            "this server by) when --bind is a wildcard"};
  }
  return o;
}

}  // namespace tickwire::host
