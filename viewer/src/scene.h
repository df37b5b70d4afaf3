#pragma once
// Any game's world seen from above, drawn on a Canvas from what the client
// runtime gives a game: view() (own entities predicted and smoothed, the
// others interpolated), the newest authoritative state (the server ghost of
// each predicted entity, the newest snapshot marker of the other players)
// and the misprediction counter (a flash where each correction happened).
// Entities are placed by the Layout; a game's drawers replace the generic
// circle of their type.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "tickwire/client/client.h"
#include "tickwire/viewer/layout.h"
#include "tickwire/viewer/viewer.h"

struct SDL_Renderer;

namespace tickwire::viewer {

struct SceneToggles {
  bool server_ghost = true;      // predicted entities where the newest snapshot put them
  bool snapshot_markers = true;  // other players where the newest snapshot put them
  bool correction_flashes = true;
  bool labels = true;
  bool hit_shapes = true;
};

// The colours the scene uses, also for the legend.
inline constexpr Colour kSelfColour{80, 220, 120, 255};
inline constexpr Colour kGhostColour{255, 255, 255, 220};
inline constexpr Colour kMarkerColour{255, 80, 80, 255};
inline constexpr Colour kFlashColour{255, 140, 40, 255};
// The colour of entity type `index` (by type id): blue first, then a
// spread of hues.
Colour type_colour(std::size_t index);

// The floor (the layout's bounds) and its grid, drawn before the draw lists.
void draw_floor(SDL_Renderer* renderer, const Viewport& vp);

class Scene {
 public:
  // Both must outlive the scene.
  Scene(const Layout& layout, const ViewerSpec& spec);

  // Notes corrections since the last frame; call once per frame after
  // Client::update.
  void observe(const client::Client& c, Time now);
  void draw(Canvas& canvas, const client::Client& c, const SceneToggles& toggles, Time now);
  std::uint64_t flashes_shown() const { return flashes_shown_; }
  // Entities of the avatar's type in the view (the players), as last drawn.
  std::size_t players_drawn() const { return players_drawn_; }
  std::size_t entities_drawn() const { return entities_drawn_; }

 private:
  struct Flash {
    Vec2 drawn;   // where the own avatar was drawn
    Vec2 server;  // where the correcting snapshot put it
    Time at;
  };
  float drawn_radius(const Canvas& canvas, const snapshot::World& world, snapshot::EntityId id) const;
  void draw_entity(Canvas& canvas, const client::Client& c, snapshot::EntityId id, bool own,
                   const SceneToggles& toggles);
  void draw_hit_shapes(Canvas& canvas, const snapshot::World& world, snapshot::EntityId id);
  void draw_markers(Canvas& canvas, const client::Client& c);
  void draw_ghosts(Canvas& canvas, const client::Client& c);
  void draw_flashes(Canvas& canvas, Time now);

  const Layout& layout_;
  const ViewerSpec& spec_;
  std::vector<snapshot::TypeId> draw_order_;  // the largest types first, so small ones stay on top
  std::deque<Flash> flashes_;
  std::uint64_t mispredictions_seen_ = 0;
  std::uint64_t flashes_shown_ = 0;
  std::size_t players_drawn_ = 0;
  std::size_t entities_drawn_ = 0;
  std::vector<lagcomp::Shape> shapes_;  // reused
};

}  // namespace tickwire::viewer
