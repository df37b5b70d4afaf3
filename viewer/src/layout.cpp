#include "tickwire/viewer/layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace tickwire::viewer {
namespace {

using snapshot::FieldKind;
using snapshot::FieldSpec;
using snapshot::TypeSpec;
using snapshot::Vec2;
using snapshot::Vec3;

bool is_position_kind(FieldKind kind) { return kind == FieldKind::kVec2 || kind == FieldKind::kVec3; }

bool contains_pos(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("pos") != std::string::npos;
}

// The rule of layout.h: "position" or "pos", else the first name with "pos".
const FieldSpec* find_position(const TypeSpec& type) {
  for (const FieldSpec& f : type.fields) {
    if (is_position_kind(f.kind) && (f.name == "position" || f.name == "pos")) return &f;
  }
  for (const FieldSpec& f : type.fields) {
    if (is_position_kind(f.kind) && contains_pos(f.name)) return &f;
  }
  return nullptr;
}

const FieldSpec* find_field(const TypeSpec& type, const std::string& name) {
  for (const FieldSpec& f : type.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// The declared range of component `i` of a vector field.
std::pair<float, float> component_range(const TypeSpec& type, const FieldSpec& f, int i) {
  const snapshot::ComponentSpec& c = type.components[static_cast<std::size_t>(f.offset) + static_cast<std::size_t>(i)];
  return {c.min, c.max};
}

float component(Vec3 v, int i) { return i == 0 ? v.x : (i == 1 ? v.y : v.z); }

std::pair<int, int> axes(Plane plane) {
  switch (plane) {
    case Plane::kXZ: return {0, 2};
    case Plane::kYZ: return {1, 2};
    case Plane::kXY:
    case Plane::kAuto: break;
  }
  return {0, 1};
}

void place_position(TypeLayout& t, const TypeSpec& type, const FieldSpec& f, Plane plane) {
  t.position_field = f.name;
  t.position_kind = f.kind;
  t.position_offset = f.offset;
  if (f.kind == FieldKind::kVec2) {
    t.plane = Plane::kXY;
  } else if (plane != Plane::kAuto) {
    t.plane = plane;
  } else {
    Vec3 lo;
    Vec3 hi;
    lo.x = component_range(type, f, 0).first;
    hi.x = component_range(type, f, 0).second;
    lo.y = component_range(type, f, 1).first;
    hi.y = component_range(type, f, 1).second;
    lo.z = component_range(type, f, 2).first;
    hi.z = component_range(type, f, 2).second;
    t.plane = auto_plane(lo, hi);
  }
  const auto [ax, ay] = axes(t.plane);
  const auto [x_lo, x_hi] = component_range(type, f, ax);
  const auto [y_lo, y_hi] = component_range(type, f, ay);
  t.range = {{x_lo, y_lo}, {x_hi, y_hi}};
}

TypeLayout lay_out_type(const TypeSpec& type, snapshot::TypeId id, const LayoutOptions& options) {
  TypeLayout t;
  t.type = id;
  t.name = type.name;
  t.entity = type.role == snapshot::TypeRole::kEntity;
  t.hidden = options.hidden_types.count(type.name) != 0;
  if (!t.entity) return t;
  const FieldSpec* position = find_position(type);
  if (const auto it = options.position_fields.find(type.name); it != options.position_fields.end()) {
    position = find_field(type, it->second);
    if (position == nullptr || !is_position_kind(position->kind)) {
      throw std::invalid_argument("viewer layout: type '" + type.name + "' has no vec2 or vec3 field '" + it->second +
                                  "'");
    }
  }
  if (position != nullptr) place_position(t, type, *position, options.plane);
  if (const FieldSpec* r = find_field(type, "radius"); r != nullptr && r->kind == FieldKind::kFloat) {
    t.radius_offset = r->offset;
  } else if (const auto it = options.radii.find(type.name); it != options.radii.end()) {
    t.radius = it->second;
  }
  if (const FieldSpec* o = find_field(type, "owner"); o != nullptr && o->kind == FieldKind::kInt) {
    t.owner_offset = o->offset;
  }
  return t;
}

}  // namespace

const char* to_string(Plane plane) {
  switch (plane) {
    case Plane::kAuto: return "auto";
    case Plane::kXY: return "x/y";
    case Plane::kXZ: return "x/z";
    case Plane::kYZ: return "y/z";
  }
  return "unknown";
}

Bounds Bounds::merged(const Bounds& other) const {
  return {{std::min(min.x, other.min.x), std::min(min.y, other.min.y)},
          {std::max(max.x, other.max.x), std::max(max.y, other.max.y)}};
}

Plane auto_plane(Vec3 min, Vec3 max) {
  const float wx = max.x - min.x;
  const float wy = max.y - min.y;
  const float wz = max.z - min.z;
  // Up is the narrowest axis; y wins a tie, as most 3D games put y up.
  if (wy <= wx && wy <= wz) return Plane::kXZ;
  if (wz <= wx) return Plane::kXY;
  return Plane::kYZ;
}

Layout::Layout(const snapshot::Schema& schema, const LayoutOptions& options) {
  for (const auto& [type_name, field] : options.position_fields) {
    if (!schema.find_type(type_name)) {
      std::string message = "viewer layout: no entity type '";
      message += type_name;
      message += "' for position field '";
      message += field;
      message += "'";
      throw std::invalid_argument(message);
    }
  }
  std::optional<Bounds> fitted;
  std::optional<Plane> first_vec3_plane;
  const auto specs = schema.types();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    TypeLayout t = lay_out_type(specs[i], snapshot::TypeId{static_cast<std::uint16_t>(i)}, options);
    if (t.drawn()) {
      fitted = fitted ? fitted->merged(t.range) : t.range;
      if (t.position_kind == FieldKind::kVec3 && !first_vec3_plane) first_vec3_plane = t.plane;
    }
    types_.push_back(std::move(t));
  }
  if (options.bounds) {
    if (options.bounds->empty()) throw std::invalid_argument("viewer layout: the bounds given are empty");
    bounds_ = *options.bounds;
  } else if (fitted && !fitted->empty()) {
    bounds_ = *fitted;
  } else {
    // Nothing to fit to (no positions, or all on a line): a unit square
    // around what there is.
    const Vec2 c = fitted ? Vec2{(fitted->min.x + fitted->max.x) / 2, (fitted->min.y + fitted->max.y) / 2} : Vec2{};
    bounds_ = {{c.x - 1.0F, c.y - 1.0F}, {c.x + 1.0F, c.y + 1.0F}};
  }
  shape_plane_ = options.shape_plane != Plane::kAuto ? options.shape_plane : first_vec3_plane.value_or(Plane::kXZ);
}

const TypeLayout* Layout::type(snapshot::TypeId type) const {
  return type.value < types_.size() ? &types_[type.value] : nullptr;
}

std::optional<Vec2> Layout::position(const snapshot::World& world, snapshot::EntityId id) const {
  const auto type_id = world.type_of(id);
  if (!type_id) return std::nullopt;
  const TypeLayout* t = type(*type_id);
  if (t == nullptr || !t->position_field) return std::nullopt;
  const auto slots = world.slots(id);
  const auto at = [&](std::size_t i) { return snapshot::slot_float(slots[t->position_offset + i]); };
  if (t->position_kind == FieldKind::kVec2) return Vec2{at(0), at(1)};
  return project(Vec3{at(0), at(1), at(2)}, t->plane);
}

std::optional<float> Layout::radius(const snapshot::World& world, snapshot::EntityId id) const {
  const auto type_id = world.type_of(id);
  if (!type_id) return std::nullopt;
  const TypeLayout* t = type(*type_id);
  if (t == nullptr) return std::nullopt;
  if (t->radius_offset) return snapshot::slot_float(world.slots(id)[*t->radius_offset]);
  return t->radius;
}

std::optional<std::int32_t> Layout::owner(const snapshot::World& world, snapshot::EntityId id) const {
  const auto type_id = world.type_of(id);
  if (!type_id) return std::nullopt;
  const TypeLayout* t = type(*type_id);
  if (t == nullptr || !t->owner_offset) return std::nullopt;
  return snapshot::slot_int(world.slots(id)[*t->owner_offset]);
}

Vec2 Layout::project(Vec3 p, Plane plane) {
  const auto [ax, ay] = axes(plane);
  return {component(p, ax), component(p, ay)};
}

Viewport Viewport::fit(const Bounds& world, float left, float top, float width, float height) {
  Viewport v;
  v.world = world;
  const float sx = width / std::max(world.width(), 1e-6F);
  const float sy = height / std::max(world.height(), 1e-6F);
  v.scale = std::max(std::min(sx, sy), 1e-6F);
  // Centred in the rectangle along the axis with room to spare.
  v.left = left + (width - world.width() * v.scale) / 2.0F;
  v.top = top + (height - world.height() * v.scale) / 2.0F;
  return v;
}

float grid_step(const Bounds& b, int cells) {
  const float span = std::max(b.width(), b.height());
  if (!(span > 0.0F) || cells < 1) return 1.0F;
  const float raw = span / static_cast<float>(cells);
  const float decade = std::pow(10.0F, std::floor(std::log10(raw)));
  for (const float m : {1.0F, 2.0F, 5.0F}) {
    if (m * decade >= raw * 0.75F) return m * decade;
  }
  return 10.0F * decade;
}

std::vector<float> grid_lines(float lo, float hi, float step, std::size_t max_lines) {
  std::vector<float> lines;
  if (!(step > 0.0F) || !std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return lines;
  // The first and last multiples of the step strictly inside, in steps.
  const double first = std::floor(static_cast<double>(lo) / step) + 1.0;
  const double last = std::ceil(static_cast<double>(hi) / step) - 1.0;
  const double count = last - first + 1.0;
  if (!std::isfinite(count) || !(count >= 1.0)) return lines;
  const std::size_t n = count >= static_cast<double>(max_lines) ? max_lines : static_cast<std::size_t>(count);
  lines.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto g = static_cast<float>((first + static_cast<double>(i)) * step);
    // Near the ends, or where floats are coarser than the step, a multiple
    // rounds onto a bound or onto the line before it.
    if (g > lo && g < hi && (lines.empty() || g > lines.back())) lines.push_back(g);
  }
  return lines;
}

}  // namespace tickwire::viewer
