#pragma once
// `asteroids`: the scene of KinematicSoup's transform-sync benchmark
// (github.com/KinematicSoup/benchmarks, UnityNetworkTransformBenchmark:
// SphereRingBenchmark.cs, VelocityBoundsCheck.cs, SphereRingBenchmarkData.cs
// and the asteroid and planet prefabs), rebuilt on sphere_physics.h.
//
// As published: 250 asteroids, rigid bodies with no damping and no
// gravity, spawned at random in the bounds (50 m scaled by the cube root
// of 250/1000, so 31.5 m) with a random orientation, a scale of 0.25 to 1,
// a mass of scale^3, an angular velocity of up to 45 degrees per second on
// each axis and a random direction at a speed of 1 to 4 m/s, which is also
// the body's target speed; a spawn point that overlaps a body within
// 2 x scale is pushed outward by 2 x scale until it is clear. Every frame a
// body outside the bounds accelerates toward the centre at 10 m/s^2 and one
// inside speeds up or slows down toward its target speed at 5 m/s^2,
// keeping its direction. A static planetoid of radius 5 m sits at the
// centre. Colliders use the default material (friction 0.6, no bounce), so
// contacts change spins as well as paths; over a few minutes the bodies
// settle into a ring. Synced at 30 Hz: position at 0.01 m, rotation at
// 0.001, scale at 0.01 (sent once; it never changes).
//
// Approximations, each also listed in docs/snapshots.md:
// - Each asteroid's convex mesh collider is a sphere of radius 0.8 x scale
//   (the meshes' largest extents are 1.62 to 1.99 m at scale 1), with a
//   solid sphere's inertia; the planetoid is a sphere already.
// - Physics steps at the server's 60 Hz (Reactor's server rate) with our
//   solver, not PhysX; the speed rule runs once per step.
// - The spawn draws use our generator: positions uniform in the cube of
//   the bounds (the published code multiplies a random vector by the
//   bounds; its distribution is not published), directions uniform.

#include <cstdint>
#include <string>
#include <vector>

#include "scene.h"
#include "sphere_physics.h"

namespace tickwire::bench {

class Asteroids final : public Scene {
 public:
  static constexpr int kCount = 250;
  static constexpr double kPlanetRadius = 5.0;  // Unity's sphere (radius 0.5) at scale 10
  // The bounds: 50 m at 1000 asteroids, scaled to keep their density.
  static double bounds();

  explicit Asteroids(std::uint64_t seed);
  std::string name() const override { return "asteroids"; }
  std::uint32_t tick_rate() const override { return 60; }
  std::uint32_t send_hz() const override { return 30; }
  const snapshot::Schema& schema() const override { return schema_; }
  void setup(snapshot::World& world) override;
  void step(snapshot::World& world) override;

  // The planetoid is body 0, the asteroids follow in spawn order.
  const SphereWorld& physics() const { return physics_; }

 private:
  struct Asteroid {
    snapshot::EntityId id;
    std::size_t body = 0;
    double scale = 1;
    double target_speed = 0;
  };

  static void steer(SphereBody& b, double target);
  V3 random_unit();
  void random_rotation(double* q);
  void write(snapshot::World& world);

  Rng rng_;
  SphereWorld physics_;
  snapshot::Schema schema_;
  snapshot::Field<snapshot::Vec3> position_;
  snapshot::Field<snapshot::Quat> rotation_;
  snapshot::Field<float> scale_;
  std::vector<Asteroid> asteroids_;
};

}  // namespace tickwire::bench
