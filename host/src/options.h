#pragma once
// The host's command line and config file, with the game's own flags
// added (GameOptions).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "tickwire/host/server_host.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/server_identity.h"

namespace tickwire::host {

struct Options {
  std::string bind = "0.0.0.0";
  std::uint16_t port = 7777;
  std::uint32_t tick_rate = 60;
  std::uint32_t send_rate = 30;
  std::size_t max_clients = 64;
  std::string log_level = "info";
  std::string log_format = "text";
  double stats_interval_s = 5.0;  // 0: no periodic stats
  std::string stats_json;         // empty: none
  double duration_s = 0.0;        // 0: run until signalled
  std::uint32_t workers = 1;      // threads encoding snapshots (ServerConfig::workers)
  std::size_t snapshot_bytes = 1100;
  std::uint32_t models_in_flight = 4;  // ServerConfig::snapshot_models_in_flight
  std::uint32_t views_in_flight = 16;  // ServerConfig::snapshot_views_in_flight
  std::string codebook;                // snapshot codebook file; empty: the game's (or adaptive_models)
  std::string train_codebook;          // file to write a codebook trained on this run to; empty: none
  std::string write_schema;            // write the game's schema file here and exit; empty: serve
  bool adaptive_models = false;        // adaptive models instead of the game's codebook
  int max_catch_up_ticks = 8;
  int max_rewind_ms = 250;                    // lag compensation's window
  std::optional<std::uint64_t> schema_hash;   // unset: the game's own
  std::optional<std::uint16_t> metrics_port;  // unset: no metrics; 0: any free port
  std::string metrics_bind = "0.0.0.0";
  bool agones = false;  // also on when Agones set AGONES_SDK_HTTP_PORT
  double agones_health_interval_s = 2.0;
  bool agones_allocate_on_join = false;
  std::string agones_counter = "players";  // Counter of connected players; empty: none
  std::string agones_list = "players";     // List of connected players; empty: none
  // Hardening. With a token key file, only clients holding a connect token
  // for public_address (default bind:port) are admitted.
  std::string token_key_file;
  std::string public_address;
  // The identity the server signs every handshake with, so clients can pin
  // its public key: read from --server-identity by parse_options. None: a
  // fresh one for each run, which no client can pin across restarts.
  std::string server_identity_file;
  std::optional<transport::ServerIdentity> server_identity;
  // Debugging only: also admit clients that ask for unencrypted sessions.
  bool plaintext = false;
  std::size_t max_peers_per_ip = 0;  // 0: no cap
  std::size_t max_pending_connects = 256;
  std::size_t max_pending_per_ip = 4;
  // A client silent this long is dropped.
  double timeout_s = 5.0;
  // A handshake, and a reliable transport message going unacknowledged,
  // give up after this long.
  double handshake_timeout_s = 5.0;
  std::uint32_t max_challenges_per_second = 20000;

  transport::Address address() const { return {bind, port}; }
  // The address connect tokens must name: --public-address, else the bound one.
  transport::Address token_address() const {
    if (public_address.empty()) return address();
    auto parsed = transport::Address::parse(public_address);
    return parsed ? parsed.value() : address();  // parse_options has checked it
  }
};

// Exit status and message when parsing stops the program (help, errors).
struct ParseExit {
  int code = 0;
  std::string message;  // printed to stdout for code 0, stderr otherwise
};

// The name messages start with: argv[0]'s last path component, or the
// game's name with "-server" when there is none.
std::string program_name(int argc, const char* const* argv, const GameInfo& game);

// Parses argv (and --config FILE), with the flags `add_options` adds for
// the game (may be empty). Bad flags and bad values give exit code 2 with
// a message that names the flag.
std::variant<Options, ParseExit> parse_options(int argc, const char* const* argv, const GameInfo& game,
                                               const std::function<void(GameOptions&)>& add_options = {});

}  // namespace tickwire::host
