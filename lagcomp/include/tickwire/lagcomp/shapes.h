#pragma once
// Hit shapes, in world space, as the game places them for one tick: the
// game runs its own animation and hands over where the head sphere, the
// body capsule and the crate box are; the history keeps them and blends
// them between ticks. Shapes are plain data of one fixed size, so a tick's
// shapes are one flat array and recording never allocates.

#include <cstdint>

#include "tickwire/snapshot/math.h"

namespace tickwire::lagcomp {

using snapshot::Vec3;

// Coordinates and radii beyond this (in the game's units) are refused when
// recorded: it keeps every product in the queries far from float overflow,
// and a world a million units across is larger than any game's.
inline constexpr float kMaxCoordinate = 1.0e6F;

enum class ShapeKind : std::uint8_t { kSphere, kCapsule, kBox };

// One hit shape. A tagged struct rather than a variant, so that a frame of
// shapes is a flat array the history blends field by field:
//   sphere   a = centre, radius
//   capsule  the segment a-b swept by radius (a == b is a sphere)
//   box      axis-aligned in world space, a = min corner, b = max corner;
//            radius unused (0)
// Every shape is closed: a ray that only touches its surface hits it.
struct Shape {
  ShapeKind kind = ShapeKind::kSphere;
  std::uint8_t tag = 0;  // the game's label (head, torso, ...), handed back with hits
  Vec3 a;
  Vec3 b;
  float radius = 0.0F;

  static Shape sphere(Vec3 centre, float radius, std::uint8_t tag = 0) {
    return Shape{ShapeKind::kSphere, tag, centre, centre, radius};
  }
  static Shape capsule(Vec3 a, Vec3 b, float radius, std::uint8_t tag = 0) {
    return Shape{ShapeKind::kCapsule, tag, a, b, radius};
  }
  static Shape box(Vec3 min, Vec3 max, std::uint8_t tag = 0) { return Shape{ShapeKind::kBox, tag, min, max, 0.0F}; }

  bool operator==(const Shape&) const = default;
};

// An axis-aligned bounding box; closed.
struct Aabb {
  Vec3 min;
  Vec3 max;
  bool operator==(const Aabb&) const = default;
};

// A ray from `origin` along `direction` (any length but zero; queries
// normalise it, and distances are along the unit direction), up to
// `max_distance` (which may be infinity).
struct Ray {
  Vec3 origin;
  Vec3 direction;
  float max_distance = 0.0F;
};

}  // namespace tickwire::lagcomp
