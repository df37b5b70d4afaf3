// tickwire-viewer: a window onto a Tickwire match of the arena, the viewer
// part (tickwire/viewer/viewer.h) with the arena's controls, drawing and
// hitscan markers (arena_view.h).

#include "arena_view.h"
#include "tickwire/viewer/viewer.h"

int main(int argc, char** argv) {
  tickwire::viewer::ViewerSpec spec;
  const auto arena = tickwire::viewer::make_arena_view(spec);
  return tickwire::viewer::run_viewer(argc, argv, spec);
}
