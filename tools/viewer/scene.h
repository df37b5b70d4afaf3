#pragma once
// The arena seen from above, drawn into an ImGui draw list from what the
// client runtime gives a game: view() (own player predicted and smoothed,
// everyone else interpolated), the newest authoritative state (the server
// ghost of the own player, the newest snapshot marker of the others) and
// the misprediction counter (a flash where each correction happened).

#include <cstdint>
#include <deque>

#include "shot_markers.h"
#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"

struct ImDrawList;
struct SDL_Renderer;

namespace tickwire::viewer {

struct SceneToggles {
  bool server_ghost = true;      // own player where the newest snapshot put it
  bool snapshot_markers = true;  // other players where the newest snapshot put them
  bool correction_flashes = true;
};

// Screen placement of the arena: pixels per metre and the top-left corner.
struct Viewport {
  float left = 0.0F;
  float top = 0.0F;
  float scale = 10.0F;
  float x(float world_x) const { return left + (world_x + arena::kHalfSize) * scale; }
  float y(float world_y) const { return top + (arena::kHalfSize - world_y) * scale; }  // y points up
  float to_world_x(float sx) const { return (sx - left) / scale - arena::kHalfSize; }
  float to_world_y(float sy) const { return arena::kHalfSize - (sy - top) / scale; }
};

// The hitscan markers (shot_markers.h), fading over their life: the ray
// the server cast, the struck shape where it judged it (green for a hit;
// on a miss, red), and the aimed-at player as drawn at fire time (dashed).
void draw_shot_markers(ImDrawList* list, const Viewport& vp, const std::deque<ShotMarker>& markers, Time now);

// The floor and its 10 m grid, drawn before the draw lists.
void draw_floor(SDL_Renderer* renderer, const Viewport& vp);

class Scene {
 public:
  // Notes corrections since the last frame; call once per frame after
  // Client::update.
  void observe(const client::Client& c, Time now);
  void draw(ImDrawList* list, const Viewport& vp, const client::Client& c, const SceneToggles& toggles, float aim,
            Time now) const;
  std::uint64_t flashes_shown() const { return flashes_shown_; }

 private:
  struct Flash {
    snapshot::Vec2 drawn;   // where the own player was drawn
    snapshot::Vec2 server;  // where the correcting snapshot put it
    Time at;
  };
  std::deque<Flash> flashes_;
  std::uint64_t mispredictions_seen_ = 0;
  std::uint64_t flashes_shown_ = 0;
};

}  // namespace tickwire::viewer
