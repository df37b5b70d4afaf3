#pragma once
// The small value types of networked fields. Plain data: a game converts
// them to and from its own math library at the boundary.

namespace tickwire::snapshot {

struct Vec2 {
  float x = 0.0F;
  float y = 0.0F;
  bool operator==(const Vec2&) const = default;
};

struct Vec3 {
  float x = 0.0F;
  float y = 0.0F;
  float z = 0.0F;
  bool operator==(const Vec3&) const = default;
};

// A rotation as a unit quaternion; the identity by default.
struct Quat {
  float x = 0.0F;
  float y = 0.0F;
  float z = 0.0F;
  float w = 1.0F;
  bool operator==(const Quat&) const = default;
};

}  // namespace tickwire::snapshot
