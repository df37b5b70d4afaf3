// The smallest viewer of a game: the generic drawing, no input. Run with
// --help by the package test (no window needed).
#include <memory>

#include "tickwire/arena/arena.h"
#include "tickwire/viewer/viewer.h"

int main(int argc, char** argv) {
  tickwire::viewer::ViewerSpec spec;
  spec.game_name = "packaged";
  spec.make_game = [] { return std::make_unique<tickwire::arena::Game>(); };
  return tickwire::viewer::run_viewer(argc, argv, spec);
}
