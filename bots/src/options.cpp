#include "options.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "evil_scripts.h"
#include "game_setup.h"
#include "tickwire/timesync/time_provider_factory.h"

namespace tickwire::bots {
namespace {

std::string script_help(const std::vector<ScriptInfo>& scripts) {
  std::string text = "How every bot plays:";
  for (const ScriptInfo& info : scripts) text += "\n  " + info.name + ": " + info.description;
  text += "\nEvil (hostile clients, each expected to be disconnected):";
  for (const EvilScriptInfo& info : evil_scripts()) text += "\n  " + info.name + ": " + info.description;
  return text;
}

}  // namespace

std::variant<Options, int> parse_options(int argc, const char* const* argv, const BotsSpec& spec) {
  Options o;
  const std::vector<ScriptInfo> scripts = all_scripts(spec);
  o.script = !spec.default_script.empty() ? spec.default_script
                                          : (spec.scripts.empty() ? "generic-walk" : spec.scripts.front().name);
  tools::LinkOptions link;
  const std::string game = spec.game_name.empty() ? "a game" : spec.game_name;
  CLI::App app{spec.program + ": runs many scripted clients of " + game +
                   " in one process against a Tickwire server, measures what they see, and passes or fails the run "
                   "against thresholds (exit 0 pass, 1 fail, 2 bad flags).",
               spec.program};
  if (!spec.game_version.empty()) app.set_version_flag("--version", spec.program + " " + spec.game_version);
  app.get_formatter()->column_width(34);
  app.add_option("--connect", o.connect, "Server address HOST:PORT")->capture_default_str();
  app.add_option("--bots", o.bots, "Number of bots")->capture_default_str()->check(CLI::Range(1, 4096));
  app.add_option("--duration", o.duration_s, "Seconds to run, the ramp included")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1e6));
  app.add_option("--ramp", o.ramp_s, "Seconds over which the bots connect, evenly spaced")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  auto* script = app.add_option("--script", o.script, script_help(scripts))->capture_default_str();
  script->check(CLI::IsMember([&scripts] {
    std::vector<std::string> names;
    for (const ScriptInfo& info : scripts) names.push_back(info.name);
    for (const EvilScriptInfo& info : evil_scripts()) names.push_back(info.name);
    return names;
  }()));
  app.add_option("--seed", o.seed,
                 "Seed of the scripts and the network conditions; a bot's seed derives from it "
                 "and its index")
      ->capture_default_str();
  app.add_option("--sync-test-interval", o.sync_test_interval_s,
                 "Seconds between sync tests of each bot (script sync-test)")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0));
  std::string evil_mix;
  app.add_option("--evil", evil_mix,
                 "Evil bots to mix into the run, NAME:COUNT[,NAME:COUNT...] (names as for --script); they are kept "
                 "out of the honest bots' figures and thresholds");
  app.add_option("--token-key-file", o.token_key_file,
                 "Mint a connect token for each join under the key in FILE, for a server run with the same "
                 "--token-key-file");
  std::string server_key_hex;
  auto* server_key =
      app.add_option("--server-key", server_key_hex,
                     "The server's public key (64 hex digits, from tickwire-token identity): refuse a server that "
                     "cannot prove it holds the matching identity")
          ->type_name("HEX");
  app.add_flag("--plaintext", o.security.plaintext,
               "Debugging only: ask for unencrypted sessions (the server must run with --plaintext)");
  tools::add_link_options(app, link, tools::ProbabilityUnit::kPercent);
  app.add_option("--timeout", o.timeout_s,
                 "Seconds of silence before a bot gives up on the server (connecting may take twice as long); "
                 "raise it for round trips of seconds")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 600.0))
      ->group("Network conditions");

  const std::string reports = "Reports";
  app.add_option("--report-json", o.report_json, "Write the figures and per-second series as JSON")->group(reports);
  app.add_option("--report-html", o.report_html, "Write a self-contained HTML report with plots")->group(reports);
  app.add_option("--server-stats", o.server_stats,
                 "The server's --stats-json file, plotted in the HTML report and copied into the JSON")
      ->group(reports);

  const std::string limits = "Thresholds (exit 1 when one fails)";
  Thresholds& t = o.thresholds;
  app.add_option("--max-late-inputs", t.max_late_input_fraction,
                 "Largest fraction of inputs the server received too late (late inputs / inputs sent)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0))
      ->group(limits);
  app.add_option("--max-mispredictions-per-min", t.max_mispredictions_per_min,
                 "Largest mispredictions per minute per connected bot")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9))
      ->group(limits);
  app.add_option("--max-disconnects", t.max_disconnects,
                 "Most disconnects not asked for (churn's leaving is; a denial fails --min-connected)")
      ->capture_default_str()
      ->group(limits);
  app.add_option("--min-connected", t.min_connected_fraction, "Smallest fraction of bots that must connect")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0))
      ->group(limits);
  app.add_flag("--evil-must-fail,!--no-evil-must-fail", o.evil_must_fail,
               "Fail when an evil bot is still connected at the end (on by default; matters only with evil bots)")
      ->group(limits);
  app.add_option("--max-rtt-p99-ms", t.max_rtt_p99_ms, "Largest 99th percentile RTT in ms (default: off)")
      ->check(CLI::Range(0.0, 1e6))
      ->group(limits);
  app.add_option("--max-late-burst-seconds", t.max_late_burst_seconds,
                 "Most late-burst seconds, summed over the bots: seconds in which more than 1% of a bot's inputs "
                 "were late (default: off)")
      ->check(CLI::NonNegativeNumber)
      ->group(limits);
  app.add_option("--min-input-margin-p99-ms", t.min_input_margin_p99_ms,
                 "Smallest input margin p99 of the worst bot, in ms: 99% of its inputs must reach the server at "
                 "least this long before their tick (default: off)")
      ->check(CLI::Range(-1e6, 1e6))
      ->group(limits);
  app.add_option("--min-hit-registration", t.min_hit_registration,
                 "Smallest fraction (0-1) of hitscan shots on target in the shooter's view that the server counts "
                 "as hits (scripts that score shots, BotScript::shots; default: off)")
      ->check(CLI::Range(0.0, 1.0))
      ->group(limits);
  app.add_option("--max-false-hits", t.max_false_hits,
                 "Largest fraction (0-1) of hitscan shots off target that the server counts as hits (default: off)")
      ->check(CLI::Range(0.0, 1.0))
      ->group(limits);

  const std::string client = "Client";
  app.add_option("--name", o.name, "Player name prefix; bot i is NAME-i")->capture_default_str()->group(client);
  app.add_option("--log-level", o.log_level, "Log level of the client runtimes (to stderr)")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->group(client);
  app.add_option("--schema-hash", o.schema_hash, "Schema hash to claim instead of the game's (tests denials)")
      ->group(client);
  app.add_option("--frame-rate", o.frame_rate, "Client frames per second; every bot updates each frame")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000))
      ->group(client);
  app.add_flag("--thin", o.thin,
               "Thin bots: the whole protocol (handshake, time sync, inputs, acks, decoding every snapshot) but no "
               "prediction or interpolation, so one core runs many more of them")
      ->group(client);
  app.add_option("--input-interval", o.input_interval,
                 "Ticks of input per input packet: 1 sends every tick; N sends every N ticks, for N times fewer "
                 "datagrams up, and about N - 1 ticks more latency")
      ->capture_default_str()
      ->check(CLI::Range(1, kMaxInputInterval))
      ->group(client);
  app.add_option("--time-provider", o.time_provider,
                 "How the bots keep network time: adaptive (the runtime's default), n4e (Netcode for Entities' "
                 "NetworkTimeSystem), rfc (the time RFC with a 50 ms server buffer), rtt_half_slack (RTT / 2 plus 2 "
                 "ticks); the baselines of bench_timesync, for comparing them on real links")
      ->capture_default_str()
      ->check(CLI::IsMember(
          std::vector<std::string>(timesync::kTimeProviderNames.begin(), timesync::kTimeProviderNames.end())))
      ->group(client);
  auto* codebook = app.add_option("--codebook", o.codebook_file,
                                  "The snapshot codebook the server codes with (the file given to tickwire-server "
                                  "--codebook); default: the one the game ships")
                       ->type_name("FILE")
                       ->group(client);
  app.add_flag("--adaptive-models", o.adaptive_models,
               "Expect snapshots coded with adaptive models (a server run with --adaptive-models or --train-codebook)")
      ->excludes(codebook)
      ->group(client);
  app.add_option("--schema", o.schema_file,
                 "Play with no game code: build the game from this schema file (snapshot::save_schema) and draw "
                 "inputs within its input fields' ranges (needs --thin; the generic-* scripts)")
      ->type_name("FILE")
      ->group(client);
  app.add_option("--write-schema", o.write_schema,
                 "Write the game's schema to FILE (for --schema runs elsewhere, with no game code) and exit")
      ->type_name("FILE")
      ->group(client);
  app.add_option("--input-type", o.input_type, "With --schema: the record type sent as input, when it has several")
      ->type_name("NAME")
      ->group(client);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  o.script_given = script->count() > 0;
  auto server = transport::Address::parse(o.connect);
  if (!server) {
    std::cerr << spec.program << ": --connect: " << server.error().detail << "\n";
    return 2;
  }
  o.server = *server;
  if (!o.token_key_file.empty()) {
    auto key = transport::TokenKey::load(o.token_key_file);
    if (!key) {
      std::cerr << spec.program << ": --token-key-file: " << key.error().detail << "\n";
      return 2;
    }
    o.token_key = key.value();
  }
  if (server_key->count() > 0) {
    auto key = transport::ServerPublicKey::from_hex(server_key_hex);
    if (!key) {
      std::cerr << spec.program << ": --server-key: " << key.error().detail << "\n";
      return 2;
    }
    o.security.server_key = key.value();
  }
  if (!evil_mix.empty()) {
    auto mix = parse_evil_mix(evil_mix);
    if (const std::string* error = std::get_if<std::string>(&mix)) {
      std::cerr << spec.program << ": --evil: " << *error << "\n";
      return 2;
    }
    o.evil = std::get<0>(std::move(mix));
  }
  if (find_evil_script(o.script) != nullptr) {
    // Every bot of the run is evil: none is left to hold to the thresholds.
    o.evil.insert(o.evil.begin(), {o.script, o.bots});
    o.bots = 0;
  }
  if (link.any()) {
    auto resolved = tools::resolve_link(link, tools::ProbabilityUnit::kPercent);
    if (!resolved) {
      std::cerr << spec.program << ": " << resolved.error().detail << "\n";
      return 2;
    }
    o.link = std::move(resolved).value();
  }
  return o;
}

}  // namespace tickwire::bots
