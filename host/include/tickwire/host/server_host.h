#pragma once
// A complete dedicated server around any game: command line and config
// file, periodic stats (log line and JSON), Prometheus metrics, Agones,
// a JSON lifecycle log, connect tokens and per-IP limits, the tick loop
// and its clock, and SIGINT/SIGTERM with a drain of the clients.
//
// A game's whole server main:
//
//   int main(int argc, char** argv) {
//     tickwire::host::ServerSpec spec;
//     spec.game = {"mygame", "1.0.0", "A game of mine."};
//     spec.make_game = [](const tickwire::host::ServerSettings& s) {
//       return std::make_unique<MyGame>(s.max_clients);
//     };
//     return tickwire::host::run_server(argc, argv, spec);
//   }
//
// docs/operations.md lists the flags, config keys, stats, metrics and
// exit codes every such server shares.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "tickwire/core/time.h"
#include "tickwire/prediction/net_game.h"

namespace tickwire::host {

// Who is being hosted: named in the banner, --help and --version, the
// lifecycle log's start record, the metrics' build info and every stats
// JSON line.
struct GameInfo {
  std::string name;     // short, one word: "mygame"
  std::string version;  // the game's own version, not Tickwire's
  std::string description;
};

// The game's own flags, added to the host's. Each is also a config-file
// key (its long name without the dashes). A name may be given with or
// without its leading "--". Values keep what they hold as their default.
// A name that is empty, starts with a single '-' or is taken already (by
// a host flag such as "port", or by the game twice) stops the server at
// start with status 2 and a message naming it.
class GameOptions {
 public:
  class Impl;
  explicit GameOptions(Impl& impl);
  GameOptions(const GameOptions&) = delete;
  GameOptions& operator=(const GameOptions&) = delete;

  GameOptions& flag(std::string name, std::string help, bool& value);
  GameOptions& option(std::string name, std::string help, int& value);
  GameOptions& option(std::string name, std::string help, std::uint32_t& value);
  GameOptions& option(std::string name, std::string help, std::size_t& value);
  GameOptions& option(std::string name, std::string help, double& value);
  GameOptions& option(std::string name, std::string help, std::string& value);
  // Bounds the option added last (inclusive); a value outside them exits
  // with status 2 and a message naming the flag.
  GameOptions& range(double min, double max);

 private:
  Impl& impl_;
};

// The host's settings a game may need to build itself.
struct ServerSettings {
  std::uint32_t tick_rate = 60;
  std::uint32_t send_rate = 30;
  std::size_t max_clients = 64;
  Duration max_rewind = Duration::millis(250);  // lag compensation's window
};

struct ServerSpec {
  GameInfo game;
  // Adds the game's flags; optional.
  std::function<void(GameOptions&)> add_options;
  // Builds the game once the command line is parsed. A game that refuses
  // its settings throws std::invalid_argument: the message is printed and
  // the server exits with status 2.
  std::function<std::unique_ptr<prediction::NetGame>(const ServerSettings&)> make_game;
};

// Runs the server until SIGINT, SIGTERM or --duration. Returns the
// process exit status: 0 after a clean stop, 2 for bad flags or settings,
// 1 when a port cannot be bound or a file written at the end fails.
int run_server(int argc, const char* const* argv, const ServerSpec& spec);

// The same for a game built beforehand, with no flags of its own.
int run_server(int argc, const char* const* argv, prediction::NetGame& game, const GameInfo& info);

}  // namespace tickwire::host
