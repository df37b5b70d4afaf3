#pragma once
// How the viewer places any game's entities without knowing the game: it
// reads the schema for a position field per entity type and fits the view
// to the ranges those fields declare.
//
// The position of a type, unless LayoutOptions::position_fields names it:
//   1. its vec2 or vec3 field named "position" or "pos";
//   2. else its first vec2 or vec3 field whose name contains "pos" (any case);
//   3. else none: the type is not drawn (the game may still draw it through
//      its overlay).
// A vec2 is drawn as it is, x right and y up. A vec3 is seen from above:
// LayoutOptions::plane picks the two axes shown, and by default it is the
// two with the widest declared ranges (the narrowest is taken for "up"; on
// a tie, y is up), x/z for a world declared {-500, -50, -500}..{500, 50, 500}.
//
// The size of an entity: its float field "radius" when it has one, else
// LayoutOptions::radii by type name, else none (the viewer then draws a
// dot a few pixels wide).
//
// The world shown is LayoutOptions::bounds, or else the union of the
// declared ranges of every drawn type's position, so no game constant is
// needed to frame the picture.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/math.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::viewer {

// The two world axes drawn as the screen's x (right) and y (up).
enum class Plane : std::uint8_t { kAuto, kXY, kXZ, kYZ };
const char* to_string(Plane plane);

// A rectangle on the view plane, min corner and max corner.
struct Bounds {
  snapshot::Vec2 min;
  snapshot::Vec2 max;
  float width() const { return max.x - min.x; }
  float height() const { return max.y - min.y; }
  bool empty() const { return !(width() > 0.0F) || !(height() > 0.0F); }
  // The smallest rectangle holding both.
  Bounds merged(const Bounds& other) const;
  bool operator==(const Bounds&) const = default;
};

struct LayoutOptions {
  // Type name to field name, where the rule above picks the wrong field.
  std::map<std::string, std::string> position_fields;
  // Type name to radius in world units, for types without a "radius" field.
  std::map<std::string, float> radii;
  // Types the viewer leaves out: not drawn, not counted in the bounds.
  std::set<std::string> hidden_types;
  // The plane of vec3 positions; kAuto: the widest two declared axes.
  Plane plane = Plane::kAuto;
  // The plane hit shapes (always 3D) are projected onto. kAuto: the plane
  // of the first type with a vec3 position; with only vec2 positions, x/z
  // (a flat game puts its hit shapes on the ground, y up).
  Plane shape_plane = Plane::kAuto;
  // The world shown; unset: fitted to the declared ranges.
  std::optional<Bounds> bounds;
};

// What the layout found for one type.
struct TypeLayout {
  snapshot::TypeId type;
  std::string name;
  bool entity = false;  // an entity type (records are never drawn)
  bool hidden = false;
  // The position field, when there is one.
  std::optional<std::string> position_field;
  snapshot::FieldKind position_kind = snapshot::FieldKind::kVec2;
  std::uint16_t position_offset = 0;  // its first slot
  Plane plane = Plane::kXY;           // for a vec3: the axes shown
  Bounds range;                       // its declared range on the view plane
  // The float "radius" field's slot, or the configured radius.
  std::optional<std::uint16_t> radius_offset;
  std::optional<float> radius;
  // An int field named "owner" (the player's id, shown as a label).
  std::optional<std::uint16_t> owner_offset;
  bool drawn() const { return entity && !hidden && position_field.has_value(); }
};

class Layout {
 public:
  // Throws std::invalid_argument when LayoutOptions::position_fields names
  // a type or field the schema lacks, or a field that is no vec2/vec3, or
  // when the bounds given are empty.
  explicit Layout(const snapshot::Schema& schema, const LayoutOptions& options = {});

  // Indexed by type id.
  const std::vector<TypeLayout>& types() const { return types_; }
  const TypeLayout* type(snapshot::TypeId type) const;
  // The world shown.
  const Bounds& bounds() const { return bounds_; }
  Plane shape_plane() const { return shape_plane_; }

  // Where entity `id` is on the view plane; nullopt when it is absent or
  // its type has no position.
  std::optional<snapshot::Vec2> position(const snapshot::World& world, snapshot::EntityId id) const;
  // Its radius by the rule above; nullopt when the type declares none.
  std::optional<float> radius(const snapshot::World& world, snapshot::EntityId id) const;
  std::optional<std::int32_t> owner(const snapshot::World& world, snapshot::EntityId id) const;
  // A point of a hit shape on the view plane.
  snapshot::Vec2 project(snapshot::Vec3 p) const { return project(p, shape_plane_); }
  static snapshot::Vec2 project(snapshot::Vec3 p, Plane plane);

 private:
  std::vector<TypeLayout> types_;
  Bounds bounds_;
  Plane shape_plane_ = Plane::kXZ;
};

// The plane a vec3 range is best seen on: the narrowest axis is "up".
Plane auto_plane(snapshot::Vec3 min, snapshot::Vec3 max);

// Screen placement: the world's bounds fitted into a pixel rectangle,
// aspect kept, centred; y points up in the world and down on screen.
struct Viewport {
  Bounds world;
  float left = 0.0F;   // pixels of the world's min x
  float top = 0.0F;    // pixels of the world's max y
  float scale = 1.0F;  // pixels per world unit

  static Viewport fit(const Bounds& world, float left, float top, float width, float height);
  float x(float world_x) const { return left + (world_x - world.min.x) * scale; }
  float y(float world_y) const { return top + (world.max.y - world_y) * scale; }
  float to_world_x(float sx) const { return world.min.x + (sx - left) / scale; }
  float to_world_y(float sy) const { return world.max.y - (sy - top) / scale; }
};

// A grid spacing of 1, 2 or 5 times a power of ten giving about `cells`
// cells across the longer side of `b`.
float grid_step(const Bounds& b, int cells = 8);

// Where the grid lines `step` apart fall strictly inside (lo, hi): on
// multiples of the step, so the origin lies on one; at most `max_lines`.
// Counted in whole steps rather than added up, so a step too small to move
// a float far from the origin yields few lines instead of an endless loop.
std::vector<float> grid_lines(float lo, float hi, float step, std::size_t max_lines = 1000);

}  // namespace tickwire::viewer
