#pragma once
// The command line of tickwire-bots, parsed and checked in one place so a
// bad value exits with status 2 and a message naming the flag.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bot_socket.h"
#include "link_flags.h"
#include "thresholds.h"
#include "tickwire/bots/bots.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/connect_token.h"

namespace tickwire::bots {

// client::kMaxInputInterval, which bot.cpp checks this equals (the
// options do not depend on the client runtime).
inline constexpr int kMaxInputInterval = 8;

struct Options {
  std::string connect = "127.0.0.1:7777";
  // With a key the bots mint their own connect tokens, as a backend would.
  std::string token_key_file;
  std::optional<transport::TokenKey> token_key;
  // --server-key HEX (pinned) and --plaintext.
  SessionSecurity security;
  transport::Address server;  // parsed from connect
  // Honest bots; 0 when --script names an evil script.
  int bots = 4;
  double duration_s = 10.0;
  double ramp_s = 0.0;
  std::string script;  // the spec's default unless --script
  bool script_given = false;
  std::uint64_t seed = 1;
  // Applied inside each bot's transport; none: the bots add no impairment.
  std::optional<tools::ResolvedLink> link;
  std::string report_json;
  std::string report_html;
  std::string server_stats;
  Thresholds thresholds;
  std::string name = "bot";
  std::string log_level = "warn";
  std::optional<std::uint64_t> schema_hash;
  int frame_rate = 60;
  // Thin bots: the whole protocol without prediction or interpolation
  // (client::ClientConfig::thin), for loading a server cheaply.
  bool thin = false;
  // Ticks of input per input packet (client::ClientConfig::input_interval),
  // up to kMaxInputInterval.
  int input_interval = 1;
  // The client time provider by name (timesync::kTimeProviderNames);
  // adaptive is the runtime's default.
  std::string time_provider = "adaptive";
  // Thin bots with no game code: the schema file (snapshot/schema_file.h)
  // and the record type sent as input (needed when it has several).
  std::string schema_file;
  std::string input_type;
  // Write the game's schema to this file and exit (--write-schema).
  std::string write_schema;
  // The server's snapshot codebook (tickwire-server --codebook); unset: none.
  std::string codebook_file;
  std::shared_ptr<const snapshot::ModelState> codebook;
  bool adaptive_models = false;  // --adaptive-models
  double timeout_s = 5.0;
  double sync_test_interval_s = 2.0;
  // Evil bots by script, beside the honest ones (--evil, or every bot of
  // an evil --script), and whether one still connected at the end fails
  // the run.
  std::vector<std::pair<std::string, int>> evil;
  bool evil_must_fail = true;
};

// The options, or the exit status to leave with (0 after --help, 2 for a
// bad flag) once the message has been printed. Script names are checked
// against every script `spec` offers and the evil ones; --codebook and
// --schema are loaded later, by make_game_setup.
std::variant<Options, int> parse_options(int argc, const char* const* argv, const BotsSpec& spec);

}  // namespace tickwire::bots
