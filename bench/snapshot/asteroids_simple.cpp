// `asteroids_simple`: an earlier, simpler take on the KinematicSoup
// transform-sync workload, kept for comparison with `asteroids` (which
// follows the published scene: rigid-body contact with friction and a
// central planetoid). 250 asteroids in a sphere of radius 31.5 m, random
// orientation, radius 0.25 to 1 m, angular velocity up to 45 degrees per
// second on each axis, a target speed of 1 to 4 m/s in a random direction.
// Each 60 Hz physics step a body outside the bounds accelerates toward the
// centre at 10 m/s^2, a body inside accelerates or decelerates toward its
// target speed at 5 m/s^2, and spheres bounce off each other elastically.
// Each spin is drawn once and never changes; there is no planetoid.
// Synced at 30 Hz with position precision 0.01 m and rotation precision
// 0.001.

#include <numbers>

#include "scene.h"
#include "sphere_physics.h"

namespace tickwire::bench {
namespace {

using snapshot::Field;
using snapshot::Quat;
using snapshot::Vec3;

constexpr int kCount = 250;
constexpr double kBounds = 31.5;
constexpr double kDt = 1.0 / 60.0;

struct Body {
  snapshot::EntityId id;
  V3 p;
  V3 v;
  V3 dir;  // direction of travel toward the target speed while inside
  double target_speed = 0;
  double radius = 0;
  double mass = 0;
  double q[4] = {0, 0, 0, 1};  // x, y, z, w
  V3 w;                        // angular velocity, rad/s
};

class AsteroidsSimple final : public Scene {
 public:
  explicit AsteroidsSimple(std::uint64_t seed) : rng_(seed) {
    snapshot::SchemaBuilder b;
    auto t = b.entity_type("asteroid");
    position_ = t.add_vec3("position", {-64, -64, -64}, {64, 64, 64}, 0.01F);
    rotation_ = t.add_quat("rotation", 0.001F);
    schema_ = b.build();
  }
  std::string name() const override { return "asteroids_simple"; }
  std::uint32_t tick_rate() const override { return 60; }
  std::uint32_t send_hz() const override { return 30; }
  const snapshot::Schema& schema() const override { return schema_; }

  void setup(snapshot::World& world) override {
    for (int i = 0; i < kCount; ++i) {
      Body body;
      body.id = world.spawn(*schema_.find_type("asteroid"));
      // Uniform in the sphere, by rejection.
      do {
        body.p = {rng_.uniform(-1, 1), rng_.uniform(-1, 1), rng_.uniform(-1, 1)};
      } while (body.p.length() > 1.0);
      body.p = body.p * kBounds;
      body.radius = rng_.uniform(0.25, 1.0);
      body.mass = body.radius * body.radius * body.radius;
      body.dir = random_unit();
      body.target_speed = rng_.uniform(1.0, 4.0);
      const double deg = std::numbers::pi / 180.0;
      body.w = {rng_.uniform(-45, 45) * deg, rng_.uniform(-45, 45) * deg, rng_.uniform(-45, 45) * deg};
      // Uniform random rotation (Shoemake).
      const double u1 = rng_.uniform(0, 1), u2 = rng_.uniform(0, 1), u3 = rng_.uniform(0, 1);
      const double a = std::sqrt(1 - u1), c = std::sqrt(u1);
      body.q[0] = a * std::sin(2 * std::numbers::pi * u2);
      body.q[1] = a * std::cos(2 * std::numbers::pi * u2);
      body.q[2] = c * std::sin(2 * std::numbers::pi * u3);
      body.q[3] = c * std::cos(2 * std::numbers::pi * u3);
      bodies_.push_back(body);
    }
    write(world);
  }

  void step(snapshot::World& world) override {
    for (Body& b : bodies_) {
      const double dist = b.p.length();
      if (dist > kBounds) {
        b.v = b.v - b.p * (10.0 * kDt / dist);
      } else {
        const double speed = b.v.length();
        if (speed > 1e-9) b.dir = b.v * (1.0 / speed);
        const V3 want = b.dir * b.target_speed;
        V3 dv = want - b.v;
        const double max_dv = 5.0 * kDt;
        const double len = dv.length();
        if (len > max_dv) dv = dv * (max_dv / len);
        b.v = b.v + dv;
      }
      b.p = b.p + b.v * kDt;
      integrate_orientation(b.q, b.w.x, b.w.y, b.w.z, kDt);
    }
    collide();
    write(world);
  }

 private:
  V3 random_unit() {
    for (;;) {
      V3 v{rng_.uniform(-1, 1), rng_.uniform(-1, 1), rng_.uniform(-1, 1)};
      const double l = v.length();
      if (l > 1e-3 && l <= 1.0) return v * (1.0 / l);
    }
  }

  // Elastic collisions of spheres: separate the overlap and exchange the
  // normal component of momentum.
  void collide() {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
      for (std::size_t j = i + 1; j < bodies_.size(); ++j) {
        Body& a = bodies_[i];
        Body& b = bodies_[j];
        const V3 d = b.p - a.p;
        const double r = a.radius + b.radius;
        const double d2 = d.dot(d);
        if (d2 >= r * r || d2 < 1e-12) continue;
        const double dist = std::sqrt(d2);
        const V3 n = d * (1.0 / dist);
        const double overlap = r - dist;
        const double total = a.mass + b.mass;
        a.p = a.p - n * (overlap * b.mass / total);
        b.p = b.p + n * (overlap * a.mass / total);
        const double approach = (a.v - b.v).dot(n);
        if (approach <= 0) continue;
        const double impulse = 2.0 * approach / total;
        a.v = a.v - n * (impulse * b.mass);
        b.v = b.v + n * (impulse * a.mass);
      }
    }
  }

  void write(snapshot::World& world) {
    for (const Body& b : bodies_) {
      world.set(b.id, position_, Vec3{static_cast<float>(b.p.x), static_cast<float>(b.p.y), static_cast<float>(b.p.z)});
      world.set(b.id, rotation_,
                Quat{static_cast<float>(b.q[0]), static_cast<float>(b.q[1]), static_cast<float>(b.q[2]),
                     static_cast<float>(b.q[3])});
    }
  }

  Rng rng_;
  snapshot::Schema schema_;
  Field<Vec3> position_;
  Field<Quat> rotation_;
  std::vector<Body> bodies_;
};

}  // namespace

std::unique_ptr<Scene> make_asteroids_simple(std::uint64_t seed) { return std::make_unique<AsteroidsSimple>(seed); }

}  // namespace tickwire::bench
