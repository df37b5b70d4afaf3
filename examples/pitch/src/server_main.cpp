// Pitch's dedicated server: the host brings the command line, the tick
// loop, stats, metrics and shutdown; the game brings itself.
#include <memory>
#include <string>

#include "pitch/game.h"
#include "tickwire/host/server_host.h"

int main(int argc, char** argv) {
  namespace host = tickwire::host;
  std::uint32_t match_seconds = pitch::GameConfig{}.match_seconds;
  host::ServerSpec spec;
  spec.game = {std::string(pitch::kGameName), std::string(pitch::kGameVersion),
               "Two teams, one ball, two goals: a top-down ball game."};
  spec.add_options = [&](host::GameOptions& options) {
    options.option("--match-seconds", "Length of a match in seconds", match_seconds).range(1, pitch::kMaxMatchSeconds);
  };
  // The game's speeds are per second: the server tells it the rate it ticks at.
  spec.make_game = [&](const host::ServerSettings&) {
    pitch::GameConfig config;
    config.match_seconds = match_seconds;
    return std::make_unique<pitch::Game>(config);
  };
  return host::run_server(argc, argv, spec);
}
