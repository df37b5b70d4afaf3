// tickwire-server: the dedicated server hosting the arena reference game.
#include <memory>

#include "tickwire/arena/arena.h"
#include "tickwire/host/server_host.h"

#ifndef TICKWIRE_VERSION
#define TICKWIRE_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using namespace tickwire;
  std::size_t nearest = 0;
  host::ServerSpec spec;
  spec.game = {"arena", TICKWIRE_VERSION,
               "The reference game: a 2D top-down arena where players move, dash, shoot and ride platforms."};
  spec.add_options = [&nearest](host::GameOptions& options) {
    options.option("nearest", "Send each client only its nearest N entities; 0 sends all", nearest).range(0, 100000);
  };
  spec.make_game = [&nearest](const host::ServerSettings& settings) {
    arena::GameConfig config;
    config.nearest_entities = nearest;
    config.max_rewind = settings.max_rewind;
    config.max_hittable = static_cast<std::uint32_t>(settings.max_clients);
    return std::make_unique<arena::Game>(config);
  };
  return host::run_server(argc, argv, spec);
}
