#include "asteroids.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tickwire::bench {
namespace {

using snapshot::Quat;
using snapshot::Vec3;

constexpr double kDt = 1.0 / 60.0;
constexpr double kRadiusPerScale = 0.8;   // sphere standing in for the convex mesh
constexpr double kSpawnClearance = 2.0;   // x scale, as the published overlap check
constexpr double kBoundsAccel = 10.0;     // m/s^2 toward the centre when outside
constexpr double kSpeedAccel = 5.0;       // m/s^2 toward the target speed inside
constexpr double kMaxSpinDegrees = 45.0;  // per axis, per second
// Unity's Vector3.normalized gives zero below this length.
constexpr double kNormalizeEpsilon = 1e-5;

}  // namespace

double Asteroids::bounds() { return 50.0 * std::cbrt(kCount / 1000.0); }

Asteroids::Asteroids(std::uint64_t seed) : rng_(seed) {
  snapshot::SchemaBuilder b;
  auto t = b.entity_type("asteroid");
  position_ = t.add_vec3("position", {-64, -64, -64}, {64, 64, 64}, 0.01F);
  rotation_ = t.add_quat("rotation", 0.001F);
  scale_ = t.add_float("scale", 0.25F, 1.0F, 0.01F, snapshot::Interpolation::kStep);
  schema_ = b.build();
}

void Asteroids::setup(snapshot::World& world) {
  SphereBody planet;
  planet.radius = kPlanetRadius;  // static: no mass, no inertia
  physics_.add(planet);
  const double deg = std::numbers::pi / 180.0;
  for (int i = 0; i < kCount; ++i) {
    Asteroid a;
    a.id = world.spawn(*schema_.find_type("asteroid"));
    SphereBody body;
    body.p = V3{rng_.uniform(-1, 1), rng_.uniform(-1, 1), rng_.uniform(-1, 1)} * bounds();
    random_rotation(body.q);
    a.scale = rng_.uniform(0.25, 1.0);
    const double from_centre = body.p.length();
    const V3 outward = from_centre > 1e-9 ? body.p * (1.0 / from_centre) : V3{1, 0, 0};
    while (physics_.overlaps(body.p, kSpawnClearance * a.scale))
      body.p = body.p + outward * (kSpawnClearance * a.scale);
    body.w = V3{rng_.uniform(-1, 1), rng_.uniform(-1, 1), rng_.uniform(-1, 1)} * (kMaxSpinDegrees * deg);
    a.target_speed = rng_.uniform(1.0, 4.0);
    body.v = random_unit() * a.target_speed;
    body.radius = kRadiusPerScale * a.scale;
    const double mass = a.scale * a.scale * a.scale;
    body.inv_mass = 1.0 / mass;
    body.inv_inertia = 1.0 / (0.4 * mass * body.radius * body.radius);
    a.body = physics_.add(body);
    asteroids_.push_back(a);
  }
  write(world);
}

void Asteroids::step(snapshot::World& world) {
  for (const Asteroid& a : asteroids_) steer(physics_.bodies()[a.body], a.target_speed);
  physics_.step(kDt);
  write(world);
}

// VelocityBoundsCheck: pulled back when outside, otherwise the speed moves
// toward the target and the direction is left to the collisions.
void Asteroids::steer(SphereBody& b, double target) {
  const double limit = bounds();
  if (b.p.dot(b.p) > limit * limit) {
    b.v = b.v - b.p * (kBoundsAccel * kDt / b.p.length());
    return;
  }
  const double speed_sq = b.v.dot(b.v);
  if (std::fabs(speed_sq - target * target) <= 0.001) return;
  double speed = std::sqrt(speed_sq);
  const V3 dir = speed > kNormalizeEpsilon ? b.v * (1.0 / speed) : V3{};
  speed = speed < target ? std::min(speed + kSpeedAccel * kDt, target) : std::max(speed - kSpeedAccel * kDt, target);
  b.v = dir * speed;
}

V3 Asteroids::random_unit() {
  for (;;) {
    V3 v{rng_.uniform(-1, 1), rng_.uniform(-1, 1), rng_.uniform(-1, 1)};
    const double l = v.length();
    if (l > 1e-3 && l <= 1.0) return v * (1.0 / l);
  }
}

// Uniform random rotation (Shoemake).
void Asteroids::random_rotation(double* q) {
  const double u1 = rng_.uniform(0, 1), u2 = rng_.uniform(0, 1), u3 = rng_.uniform(0, 1);
  const double a = std::sqrt(1 - u1), c = std::sqrt(u1);
  q[0] = a * std::sin(2 * std::numbers::pi * u2);
  q[1] = a * std::cos(2 * std::numbers::pi * u2);
  q[2] = c * std::sin(2 * std::numbers::pi * u3);
  q[3] = c * std::cos(2 * std::numbers::pi * u3);
}

void Asteroids::write(snapshot::World& world) {
  for (const Asteroid& a : asteroids_) {
    const SphereBody& b = physics_.bodies()[a.body];
    world.set(a.id, position_, Vec3{static_cast<float>(b.p.x), static_cast<float>(b.p.y), static_cast<float>(b.p.z)});
    world.set(a.id, rotation_,
              Quat{static_cast<float>(b.q[0]), static_cast<float>(b.q[1]), static_cast<float>(b.q[2]),
                   static_cast<float>(b.q[3])});
    world.set(a.id, scale_, static_cast<float>(a.scale));
  }
}

std::unique_ptr<Scene> make_asteroids(std::uint64_t seed) { return std::make_unique<Asteroids>(seed); }

}  // namespace tickwire::bench
