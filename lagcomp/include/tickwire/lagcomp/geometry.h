#pragma once
// Exact tests of one ray or one sphere against one hit shape, and the
// blending of a shape between two ticks. The history's queries are built
// from these; a game may use them directly (to test a rewound shape again,
// or to draw one).
//
// The tests compute in double from the float shapes, so the answers at the
// edges are the geometry's, not float rounding's: a ray tangent to a sphere
// or grazing a box face hits it (shapes are closed), and a ray that starts
// inside a shape hits it at distance 0.

#include <optional>

#include "tickwire/lagcomp/shapes.h"

namespace tickwire::lagcomp {

// True when every coordinate is finite and within kMaxCoordinate, a
// sphere's or capsule's radius is in (0, kMaxCoordinate], and a box's min
// corner is nowhere above its max corner.
bool valid(const Shape& shape);
bool valid(const Vec3& point);
// True when the origin is valid, the direction is finite and not zero, and
// max_distance is not negative (infinity allowed) and not NaN.
bool valid(const Ray& ray);

// The smallest box holding the shape.
Aabb bounds(const Shape& shape);
Aabb merge(const Aabb& a, const Aabb& b);

// The shape at fraction t in [0, 1] of the way from s0 to s1, which must be
// of one kind (the history never blends shapes of different kinds): every
// point, corner and radius moves linearly. The tag is s0's. A blended
// shape always lies inside merge(bounds(s0), bounds(s1)), which is what
// lets the history's broad phase bound a whole tick with one box.
Shape lerp(const Shape& s0, const Shape& s1, float t);
Vec3 lerp(const Vec3& a, const Vec3& b, float t);

// Distance along the ray's unit direction to the first point of the shape,
// or nullopt when the ray misses it within max_distance (or the ray is not
// valid). 0 when the origin is inside or on the shape.
std::optional<double> ray_distance(const Shape& shape, const Ray& ray);

// Distance from a point to the nearest point of the shape; 0 inside.
double distance_to(const Shape& shape, const Vec3& point);

namespace detail {
// The ray with its direction normalised, in double: computed once per query
// rather than once per shape.
struct UnitRay {
  double ox, oy, oz;
  double dx, dy, dz;
  double max_distance;
};
std::optional<UnitRay> unit_ray(const Ray& ray);
std::optional<double> ray_distance(const Shape& shape, const UnitRay& ray);
}  // namespace detail

}  // namespace tickwire::lagcomp
