#include "options.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "link_presets.h"

namespace tickwire::viewer {

std::variant<Options, int> parse_options(int argc, const char* const* argv, const std::string& program,
                                         const ViewerSpec& spec) {
  Options o;
  const std::string game = spec.game_name + (spec.game_version.empty() ? "" : " " + spec.game_version);
  CLI::App app{program + ": joins a Tickwire server hosting " + game +
                   " and plays it in a window, drawing what the netcode does (prediction, the server's view, "
                   "interpolation, corrections) with a net graph. " +
                   (spec.controls_help.empty() ? std::string() : "Keys: " + spec.controls_help + "; ") +
                   "G net graph, L link conditioner, P/I/M prediction/interpolation/smoothing, H server ghost, "
                   "N snapshot markers, T labels, Esc quits. Exit 0 when it ends normally, 1 when it cannot start, 2 "
                   "for bad flags, 3 when the server refused it or went away.",
               program};
  app.get_formatter()->column_width(30);
  app.add_option("--connect", o.connect, "Server address HOST:PORT")->capture_default_str();
  app.add_option("--name", o.name, "Player name")->capture_default_str();
  std::string names;
  std::vector<std::string> script_list;
  for (const ScriptSpec& info : spec.scripts) {
    script_list.push_back(info.name);
    names += "\n  " + info.name + ": " + info.description;
  }
  if (!spec.scripts.empty()) {
    app.add_option("--script", o.script, "Play a script instead of from the keyboard:" + names)
        ->check(CLI::IsMember(script_list));
  }
  app.add_option("--seed", o.seed, "Seed of the --script")->capture_default_str();
  app.add_option("--duration", o.duration_s, "Seconds to run, then leave (default: until the window closes)")
      ->check(CLI::Range(0.1, 1e6));
  auto* shot =
      app.add_option("--screenshot", o.screenshot, "Write a PNG of the window to FILE after --after s, then exit");
  app.add_option("--after", o.after_s, "Seconds from start to the --screenshot")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0))
      ->needs(shot);
  app.add_option("--stats-json", o.stats_json,
                 "Write the session's figures to FILE at exit: connection, the net graph's newest values and "
                 "totals, the client's stats, frame times");
  app.add_option("--width", o.width, "Window width")->capture_default_str()->check(CLI::Range(640, 7680));
  app.add_option("--height", o.height, "Window height")->capture_default_str()->check(CLI::Range(480, 4320));
  app.add_option("--frame-rate", o.frame_rate, "Frames per second")->capture_default_str()->check(CLI::Range(10, 1000));
  app.add_flag("!--no-net-graph", o.net_graph, "Start with the net graph hidden");
  app.add_flag("--link-panel", o.link_panel, "Start with the link conditioner panel shown");
  app.add_flag("!--no-prediction", o.prediction, "Start with the own player drawn from the snapshots (P)");
  app.add_flag("!--no-interpolation", o.interpolation, "Start with the snapshots drawn raw (I)");
  app.add_flag("!--no-smoothing", o.smoothing, "Start with corrections drawn as jumps (M)");
  std::vector<std::string> presets;
  for (const LinkPreset& p : link_presets()) presets.push_back(p.name);
  app.add_option("--link", o.link_preset, "Link conditioner preset at start: " + link_preset_names())
      ->capture_default_str()
      ->check(CLI::IsMember(presets));
  auto* codebook = app.add_option("--codebook", o.codebook_file,
                                  "The snapshot codebook the server codes with (the file given to the server's "
                                  "--codebook); default: the one the game ships")
                       ->type_name("FILE");
  app.add_flag("--adaptive-models", o.adaptive_models,
               "Expect snapshots coded with adaptive models (a server run with --adaptive-models)")
      ->excludes(codebook);
  std::string server_key_hex;
  auto* server_key = app.add_option("--server-key", server_key_hex,
                                    "The server's public key (64 hex digits, from tickwire-token identity): refuse "
                                    "a server that cannot prove it holds the matching identity")
                         ->type_name("HEX");
  app.add_flag("--plaintext", o.plaintext,
               "Debugging only: ask for an unencrypted session (the server must run with --plaintext)");
  std::string token_file;
  auto* token = app.add_option("--token-file", token_file,
                               "A connect token and its session key, two lines of hex as tickwire-token mint "
                               "writes them, for a server that requires tokens")
                    ->type_name("FILE");
  app.add_option("--log-level", o.log_level, "Log level of the client runtime (to stderr)")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadFlags;
  }
  auto server = transport::Address::parse(o.connect);
  if (!server) {
    std::cerr << program << ": --connect: " << server.error().detail << "\n";
    return kExitBadFlags;
  }
  o.server = *server;
  if (server_key->count() > 0) {
    auto key = transport::ServerPublicKey::from_hex(server_key_hex);
    if (!key) {
      std::cerr << program << ": --server-key: " << key.error().detail << "\n";
      return kExitBadFlags;
    }
    o.server_key = key.value();
  }
  if (token->count() > 0) {
    auto loaded = transport::load_client_token(token_file);
    if (!loaded) {
      std::cerr << program << ": --token-file " << loaded.error().detail << "\n";
      return kExitBadFlags;
    }
    o.token = std::move(loaded).value();
  }
  return o;
}

transport::EnetConfig enet_config(const Options& options) {
  transport::EnetConfig net;
  net.plaintext = options.plaintext;
  net.validation.server_key = options.server_key;
  if (options.token) {
    net.validation.connect_token = options.token->token;
    net.validation.token_session_key = options.token->session_key;
  }
  return net;
}

}  // namespace tickwire::viewer
