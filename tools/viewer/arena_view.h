#pragma once
// The arena as tickwire-viewer shows it: the viewer part's spec filled in
// for this game. The keyboard and mouse (or a bot script) make its input;
// players, projectiles and platforms get drawers of their own (health
// bars, the aim, square platforms); the hitscan shots are an overlay that
// shows each shot as the server judged it beside what this screen showed
// when it left (shot_markers.h), and their counts go to the stats file.

#include <memory>

#include "tickwire/viewer/viewer.h"

namespace tickwire::viewer {

// The spec reads and writes state that lives as long as the returned
// object; keep it alive while run_viewer runs.
struct ArenaView;
std::shared_ptr<ArenaView> make_arena_view(ViewerSpec& spec);

}  // namespace tickwire::viewer
