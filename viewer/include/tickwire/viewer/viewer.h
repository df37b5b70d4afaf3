#pragma once
// A window onto a match of any Tickwire game: it joins a server, plays it
// from the keyboard and mouse (or a scripted input), and draws what the
// netcode does: the own entities predicted, the server's view of them
// (ghosts), the others interpolated behind their newest snapshots (markers),
// corrections (flashes), a net graph, and a link conditioner panel. It can
// run headless (a screenshot after a delay) and write its figures to JSON.
//
// A game's viewer is a small main on top of run_viewer:
//
//   int main(int argc, char** argv) {
//     tickwire::viewer::ViewerSpec spec;
//     spec.game_name = "mygame";
//     spec.make_game = [] { return std::make_unique<MyGame>(); };
//     spec.input = [](const Controls& c, Tick, snapshot::Record& r) { r.set(move_field, c.move); };
//     return tickwire::viewer::run_viewer(argc, argv, spec);
//   }
//
// Without drawers every entity type that has a position field is drawn as
// a circle in a colour of its type (layout.h says how the field and the
// view are found); a game replaces that per type with its own drawing.
// Nothing here names SDL or Dear ImGui: the drawing goes through Canvas.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/lagcomp/shapes.h"
#include "tickwire/prediction/net_game.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/math.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/world.h"
#include "tickwire/viewer/layout.h"

namespace tickwire::viewer {

using snapshot::Vec2;

// What the keyboard and mouse say this frame, for a game to map to its
// input. Empty (all zero) while a panel has the keyboard or mouse.
struct Controls {
  Vec2 move;   // WASD or the arrow keys: each axis in [-1, 1], diagonals of length 1; y is up
  Vec2 mouse;  // the pointer on the view plane, in world units
  bool mouse_in_view = false;
  bool left = false;  // mouse buttons
  bool right = false;
  bool middle = false;
  bool space = false;
  bool shift = false;  // either shift key
  // Every key held, by SDL's key name ("F", "Space", "Left Ctrl", "1", ...).
  std::vector<std::string> keys;
  bool key(std::string_view name) const;
};

struct Colour {
  std::uint8_t r = 255;
  std::uint8_t g = 255;
  std::uint8_t b = 255;
  std::uint8_t a = 255;
  // The same colour at `alpha` in [0, 1] of full opacity.
  Colour with_alpha(float alpha) const;
  bool operator==(const Colour&) const = default;
};

// The drawing a game's drawers and overlay get. Positions and radii are
// in world units on the view plane (y up); line widths and text offsets
// are in pixels, so a line stays visible at any zoom.
class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual void circle(Vec2 centre, float radius, Colour colour, float width_px = 1.5F) = 0;
  virtual void filled_circle(Vec2 centre, float radius, Colour colour) = 0;
  virtual void line(Vec2 a, Vec2 b, Colour colour, float width_px = 1.5F) = 0;
  // Axis-aligned, by two opposite corners.
  virtual void rect(Vec2 a, Vec2 b, Colour colour, float width_px = 1.5F) = 0;
  virtual void filled_rect(Vec2 a, Vec2 b, Colour colour) = 0;
  // Closed outline through the points; filled: a convex polygon.
  virtual void polygon(const std::vector<Vec2>& points, Colour colour, float width_px = 1.5F) = 0;
  virtual void filled_polygon(const std::vector<Vec2>& points, Colour colour) = 0;
  // Text with its top-left corner at `at` moved by `offset_px` (x right, y down).
  virtual void text(Vec2 at, std::string_view text, Colour colour, Vec2 offset_px = {}) = 0;
  // Pixels per world unit: for sizes that should not shrink below a few pixels.
  virtual float pixels_per_unit() const = 0;
  // `px` pixels in world units.
  float units(float px) const { return px / pixels_per_unit(); }

 protected:
  Canvas() = default;
  Canvas(const Canvas&) = default;
  Canvas& operator=(const Canvas&) = default;
};

// How an entity is being drawn this frame.
struct EntityContext {
  bool own = false;        // the player's avatar
  bool predicted = false;  // drawn from this client's prediction (else from snapshots)
  // Where the generic rule found it and how large it is drawn (layout.h);
  // `position` is absent for a type without a position field.
  std::optional<Vec2> position;
  float radius = 0.0F;
  Colour colour;  // its type's, or the own avatar's highlight
};

// Draws one entity of the type it is registered for, from `world` (the
// view: predicted or interpolated as the context says).
using EntityDrawer =
    std::function<void(Canvas& canvas, const snapshot::World& world, snapshot::EntityId id, const EntityContext& ctx)>;

// What a frame's hooks see, after the client runtime's update.
struct FrameContext {
  const snapshot::World* view = nullptr;    // as drawn
  const snapshot::World* newest = nullptr;  // the newest server state decoded
  std::optional<snapshot::EntityId> avatar;
  std::optional<std::uint32_t> client_id;
  const Layout* layout = nullptr;
  Time now;
};

// Fills in the game's input for one predicted tick; the record starts at
// the input type's defaults.
using InputFn = std::function<void(const Controls& controls, Tick tick, snapshot::Record& input)>;

// A scripted player, chosen with --script NAME: makes an input function
// from --seed. Its Controls are empty; it reads what it needs from the
// frame hook.
struct ScriptSpec {
  std::string name;
  std::string description;
  std::function<InputFn(std::uint64_t seed)> make;
};

struct ViewerSpec {
  std::string game_name = "game";
  std::string game_version;
  // The client's game object; called once.
  std::function<std::unique_ptr<prediction::NetGame>()> make_game;
  // Unset: the viewer sends the neutral (default) input every tick.
  InputFn input;
  std::vector<ScriptSpec> scripts;
  // By entity type name: replaces the generic drawing of that type.
  std::map<std::string, EntityDrawer> drawers;
  // Hit shapes, drawn as outlines on top of the entities: the shapes the
  // game records for lag compensation (lagcomp/shapes.h), projected onto
  // the view plane along `LayoutOptions::shape_plane`.
  std::function<void(const snapshot::World& world, snapshot::EntityId id, std::vector<lagcomp::Shape>& out)> hit_shapes;
  // Position fields, radii, hidden types, planes and bounds (layout.h).
  LayoutOptions layout;
  // Called once per frame after the client's update, before drawing.
  std::function<void(const FrameContext& frame)> on_frame;
  // Drawn over the entities, under the panels.
  std::function<void(Canvas& canvas, const FrameContext& frame)> overlay;
  // Extra lines for the control panel (what the keys do, the game's counts).
  std::string controls_help;
  std::function<std::string()> status_text;
  // Extra members of the --stats-json object: key and JSON value text.
  std::function<std::vector<std::pair<std::string, std::string>>()> extra_stats;
};

// Exit codes (also in --help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCannotStart = 1;
inline constexpr int kExitBadFlags = 2;
inline constexpr int kExitServerGone = 3;

// Parses the command line (--help lists the flags), opens the window and
// runs until the window closes, --duration passes, a --screenshot is taken,
// SIGINT/SIGTERM, or the server refuses the client or goes away. Returns
// the exit code. `argv[0]` names the program in messages.
int run_viewer(int argc, const char* const* argv, const ViewerSpec& spec);

}  // namespace tickwire::viewer
