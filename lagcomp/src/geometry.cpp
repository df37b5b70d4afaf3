#include "tickwire/lagcomp/geometry.h"

#include <algorithm>
#include <cmath>

namespace tickwire::lagcomp {

namespace {

struct D3 {
  double x, y, z;
};

D3 d3(const Vec3& v) { return {v.x, v.y, v.z}; }
D3 sub(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

bool finite_within(float v) { return std::isfinite(v) && std::fabs(v) <= kMaxCoordinate; }

// Distance from p to the segment a-b.
double segment_distance(D3 p, D3 a, D3 b) {
  const D3 ab = sub(b, a);
  const D3 ap = sub(p, a);
  const double len2 = dot(ab, ab);
  double t = len2 > 0.0 ? dot(ap, ab) / len2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  const D3 closest{a.x + ab.x * t, a.y + ab.y * t, a.z + ab.z * t};
  const D3 d = sub(p, closest);
  return std::sqrt(dot(d, d));
}

// First entry of the ray into the sphere, for a ray starting outside it.
std::optional<double> ray_sphere(const detail::UnitRay& r, D3 c, double radius) {
  const D3 m{r.ox - c.x, r.oy - c.y, r.oz - c.z};
  const double b = m.x * r.dx + m.y * r.dy + m.z * r.dz;
  const double c2 = dot(m, m) - radius * radius;
  if (c2 <= 0.0) return 0.0;  // inside or on the surface
  if (b > 0.0) return std::nullopt;
  const double disc = b * b - c2;
  if (disc < 0.0) return std::nullopt;
  return -b - std::sqrt(disc);
}

std::optional<double> ray_capsule(const detail::UnitRay& r, D3 a, D3 b, double radius) {
  const D3 o{r.ox, r.oy, r.oz};
  if (segment_distance(o, a, b) <= radius) return 0.0;
  // The capsule is the union of its two end spheres and the finite
  // cylinder between them, and a ray's first entry into a union is the
  // earliest first entry into a part. Through the cylinder's end discs a
  // ray is already inside an end sphere, so only its side counts.
  std::optional<double> best;
  const auto take = [&best](std::optional<double> t) {
    if (t && (!best || *t < *best)) best = t;
  };
  take(ray_sphere(r, a, radius));
  take(ray_sphere(r, b, radius));
  const D3 ba = sub(b, a);
  const double baba = dot(ba, ba);
  if (baba > 0.0) {
    const D3 oa = sub(o, a);
    const D3 d{r.dx, r.dy, r.dz};
    const double bard = dot(ba, d);
    const double baoa = dot(ba, oa);
    const double rdoa = dot(d, oa);
    const double oaoa = dot(oa, oa);
    const double qa = baba - bard * bard;  // baba * sin^2 of the angle to the axis
    // A ray (nearly) parallel to the axis meets the side only after an end
    // sphere, and the quadratic would divide by (nearly) zero.
    if (qa > baba * 1e-12) {
      const double qb = baba * rdoa - baoa * bard;
      const double qc = baba * oaoa - baoa * baoa - radius * radius * baba;
      const double h = qb * qb - qa * qc;
      if (h >= 0.0) {
        const double t = (-qb - std::sqrt(h)) / qa;
        const double y = baoa + t * bard;
        if (t >= 0.0 && y >= 0.0 && y <= baba) take(t);
      }
    }
  }
  return best;
}

// Slab test; a zero direction component is handled apart, so no 0 * inf.
std::optional<double> ray_box(const detail::UnitRay& r, D3 lo, D3 hi) {
  double tmin = 0.0;
  double tmax = r.max_distance;
  const double o[3] = {r.ox, r.oy, r.oz};
  const double d[3] = {r.dx, r.dy, r.dz};
  const double mn[3] = {lo.x, lo.y, lo.z};
  const double mx[3] = {hi.x, hi.y, hi.z};
  for (int i = 0; i < 3; ++i) {
    if (d[i] == 0.0) {
      if (o[i] < mn[i] || o[i] > mx[i]) return std::nullopt;
      continue;
    }
    double t0 = (mn[i] - o[i]) / d[i];
    double t1 = (mx[i] - o[i]) / d[i];
    if (t0 > t1) std::swap(t0, t1);
    tmin = std::max(tmin, t0);
    tmax = std::min(tmax, t1);
    if (tmin > tmax) return std::nullopt;
  }
  return tmin;
}

}  // namespace

bool valid(const Vec3& p) { return finite_within(p.x) && finite_within(p.y) && finite_within(p.z); }

bool valid(const Shape& s) {
  if (!valid(s.a) || !valid(s.b)) return false;
  switch (s.kind) {
    case ShapeKind::kSphere:
    case ShapeKind::kCapsule: return finite_within(s.radius) && s.radius > 0.0F;
    case ShapeKind::kBox: return s.a.x <= s.b.x && s.a.y <= s.b.y && s.a.z <= s.b.z;
  }
  return false;
}

bool valid(const Ray& ray) {
  const Vec3& d = ray.direction;
  if (!valid(ray.origin) || !std::isfinite(d.x) || !std::isfinite(d.y) || !std::isfinite(d.z)) return false;
  if (d.x == 0.0F && d.y == 0.0F && d.z == 0.0F) return false;
  return !std::isnan(ray.max_distance) && ray.max_distance >= 0.0F;
}

Aabb bounds(const Shape& s) {
  switch (s.kind) {
    case ShapeKind::kSphere:
    case ShapeKind::kCapsule: {
      const float r = s.radius;
      return {{std::min(s.a.x, s.b.x) - r, std::min(s.a.y, s.b.y) - r, std::min(s.a.z, s.b.z) - r},
              {std::max(s.a.x, s.b.x) + r, std::max(s.a.y, s.b.y) + r, std::max(s.a.z, s.b.z) + r}};
    }
    case ShapeKind::kBox: return {s.a, s.b};
  }
  return {};
}

Aabb merge(const Aabb& a, const Aabb& b) {
  return {{std::min(a.min.x, b.min.x), std::min(a.min.y, b.min.y), std::min(a.min.z, b.min.z)},
          {std::max(a.max.x, b.max.x), std::max(a.max.y, b.max.y), std::max(a.max.z, b.max.z)}};
}

Vec3 lerp(const Vec3& a, const Vec3& b, float t) {
  return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

Shape lerp(const Shape& s0, const Shape& s1, float t) {
  return Shape{s0.kind, s0.tag, lerp(s0.a, s1.a, t), lerp(s0.b, s1.b, t), s0.radius + (s1.radius - s0.radius) * t};
}

namespace detail {

std::optional<UnitRay> unit_ray(const Ray& ray) {
  if (!valid(ray)) return std::nullopt;
  const double dx = ray.direction.x;
  const double dy = ray.direction.y;
  const double dz = ray.direction.z;
  const double len = std::sqrt(dx * dx + dy * dy + dz * dz);
  return UnitRay{ray.origin.x, ray.origin.y, ray.origin.z, dx / len, dy / len, dz / len, ray.max_distance};
}

std::optional<double> ray_distance(const Shape& s, const UnitRay& r) {
  std::optional<double> t;
  switch (s.kind) {
    case ShapeKind::kSphere: t = ray_sphere(r, d3(s.a), s.radius); break;
    case ShapeKind::kCapsule: t = ray_capsule(r, d3(s.a), d3(s.b), s.radius); break;
    case ShapeKind::kBox: t = ray_box(r, d3(s.a), d3(s.b)); break;
  }
  if (t && *t > r.max_distance) return std::nullopt;
  return t;
}

}  // namespace detail

std::optional<double> ray_distance(const Shape& shape, const Ray& ray) {
  const auto r = detail::unit_ray(ray);
  if (!r) return std::nullopt;
  return detail::ray_distance(shape, *r);
}

double distance_to(const Shape& s, const Vec3& point) {
  const D3 p = d3(point);
  switch (s.kind) {
    case ShapeKind::kSphere: {
      const D3 d = sub(p, d3(s.a));
      return std::max(0.0, std::sqrt(dot(d, d)) - s.radius);
    }
    case ShapeKind::kCapsule: return std::max(0.0, segment_distance(p, d3(s.a), d3(s.b)) - s.radius);
    case ShapeKind::kBox: {
      const double ex = std::max({static_cast<double>(s.a.x) - p.x, 0.0, p.x - static_cast<double>(s.b.x)});
      const double ey = std::max({static_cast<double>(s.a.y) - p.y, 0.0, p.y - static_cast<double>(s.b.y)});
      const double ez = std::max({static_cast<double>(s.a.z) - p.z, 0.0, p.z - static_cast<double>(s.b.z)});
      return std::sqrt(ex * ex + ey * ey + ez * ez);
    }
  }
  return 0.0;
}

}  // namespace tickwire::lagcomp
