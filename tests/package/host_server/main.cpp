// A complete dedicated server for a game outside the Tickwire tree (here
// the installed reference game, under a name of its own).
#include <memory>

#include "tickwire/arena/arena.h"
#include "tickwire/host/server_host.h"

int main(int argc, char** argv) {
  using namespace tickwire;
  std::size_t nearest = 0;
  host::ServerSpec spec;
  spec.game = {"outside", "3.1.4", "A game built against an installed Tickwire."};
  spec.add_options = [&nearest](host::GameOptions& options) {
    options.option("nearest", "Entities sent to each client; 0: all", nearest).range(0, 1000);
  };
  spec.make_game = [&nearest](const host::ServerSettings& settings) {
    arena::GameConfig config;
    config.nearest_entities = nearest;
    config.max_rewind = settings.max_rewind;
    return std::make_unique<arena::Game>(config);
  };
  return host::run_server(argc, argv, spec);
}
