// A viewer with nothing of the game's but its NetGame: every entity drawn
// by the viewer part's generic rules (layout.h), neutral input. The
// end-to-end test runs it against the dedicated server to show the part
// draws a game it knows nothing about.
#include <memory>

#include "tickwire/arena/arena.h"
#include "tickwire/viewer/viewer.h"

int main(int argc, char** argv) {
  tickwire::viewer::ViewerSpec spec;
  spec.game_name = "generic";
  spec.make_game = [] { return std::make_unique<tickwire::arena::Game>(); };
  return tickwire::viewer::run_viewer(argc, argv, spec);
}
