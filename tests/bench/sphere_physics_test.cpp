// The benchmark's sphere contact: zero restitution, Coulomb friction that
// spins bodies, static bodies, leftover overlap, the spin cap.

#include "sphere_physics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tickwire::bench {
namespace {

constexpr double kDt = 1.0 / 60.0;

SphereBody dynamic(V3 p, V3 v, double radius, double mass) {
  SphereBody b;
  b.p = p;
  b.v = v;
  b.radius = radius;
  b.inv_mass = 1.0 / mass;
  b.inv_inertia = 1.0 / (0.4 * mass * radius * radius);
  return b;
}

SphereBody fixed(V3 p, double radius) {
  SphereBody b;
  b.p = p;
  b.radius = radius;
  return b;
}

// A ball of radius 0.5 and mass 1 (inertia 0.1) landing on a static ball
// of radius 1 while sliding along +x: the contact is below it.
TEST(SpherePhysics, FrictionSpinsASlidingSphereUpToItsCone) {
  SphereWorld world;
  world.add(fixed({0, 0, 0}, 1.0));
  world.add(dynamic({0, 1.49, 0}, {3, -1, 0}, 0.5, 1.0));
  world.step(kDt);
  const SphereBody& ball = world.bodies()[1];
  // No bounce: the approach is stopped, not reversed; the normal impulse is 1.
  EXPECT_NEAR(ball.v.y, 0.0, 1e-9);
  // Stopping the slide would take an impulse of 3 / 3.5, over the cone of
  // 0.6 x 1: friction stays at the cone, against the slide, and spins the
  // ball forward (about -z) by 0.6 x 0.5 / 0.1.
  EXPECT_NEAR(ball.v.x, 3.0 - 0.6, 1e-9);
  EXPECT_NEAR(ball.w.z, -3.0, 1e-9);
  EXPECT_NEAR(ball.w.x, 0.0, 1e-12);
  EXPECT_NEAR(ball.w.y, 0.0, 1e-12);
  EXPECT_EQ(world.stats().contacts, 1U);
  EXPECT_EQ(world.stats().sliding, 1U);
}

TEST(SpherePhysics, ASlowSlideEndsRolling) {
  SphereWorld world;
  world.add(fixed({0, 0, 0}, 1.0));
  world.add(dynamic({0, 1.49, 0}, {0.2, -1, 0}, 0.5, 1.0));
  world.step(kDt);
  const SphereBody& ball = world.bodies()[1];
  // Inside the cone friction stops the contact point: v.x + w.z x 0.5 = 0.
  EXPECT_NEAR(ball.v.x + ball.w.z * 0.5, 0.0, 1e-9);
  EXPECT_LT(ball.w.z, 0.0);
  EXPECT_EQ(world.stats().sliding, 0U);
}

TEST(SpherePhysics, HeadOnContactStopsTheApproachWithoutBounce) {
  SphereWorld world;
  world.add(dynamic({-0.99, 0, 0}, {1, 0, 0}, 1.0, 2.0));
  world.add(dynamic({0.99, 0, 0}, {-1, 0, 0}, 1.0, 2.0));
  world.step(kDt);
  const SphereBody& a = world.bodies()[0];
  const SphereBody& b = world.bodies()[1];
  EXPECT_NEAR(a.v.x, 0.0, 1e-9);
  EXPECT_NEAR(b.v.x, 0.0, 1e-9);
  EXPECT_NEAR(a.w.length() + b.w.length(), 0.0, 1e-12);  // nothing across the normal to spin them
}

TEST(SpherePhysics, MomentumIsKeptBetweenUnequalBodies) {
  SphereWorld world;
  world.add(dynamic({0, 0, 0}, {3, 0.5, 0}, 0.5, 1.0));
  world.add(dynamic({0.9, 0.2, 0}, {-1, 0, 0.3}, 0.6, 4.0));
  world.step(kDt);
  const SphereBody& a = world.bodies()[0];
  const SphereBody& b = world.bodies()[1];
  const V3 momentum = a.v * 1.0 + b.v * 4.0;
  EXPECT_NEAR(momentum.x, 3.0 - 4.0, 1e-9);
  EXPECT_NEAR(momentum.y, 0.5, 1e-9);
  EXPECT_NEAR(momentum.z, 1.2, 1e-9);
  // Separating or resting along the normal afterwards, never approaching.
  const V3 n = (b.p - a.p) * (1.0 / (b.p - a.p).length());
  EXPECT_GE((b.v - a.v).dot(n), -1e-9);
}

TEST(SpherePhysics, StaticBodiesNeverMove) {
  SphereWorld world;
  world.add(fixed({0, 0, 0}, 5.0));
  world.add(dynamic({5.3, 0, 0}, {-4, 1, 0}, 0.5, 1.0));
  for (int i = 0; i < 60; ++i) world.step(kDt);
  const SphereBody& planet = world.bodies()[0];
  EXPECT_EQ(planet.p.x, 0.0);
  EXPECT_EQ(planet.v.length(), 0.0);
  EXPECT_EQ(planet.w.length(), 0.0);
  EXPECT_GE(world.bodies()[1].p.length(), 5.5 - 0.01);
}

TEST(SpherePhysics, OverlapIsPushedApartWithoutAddingSpeed) {
  SphereWorld world;
  world.add(dynamic({-0.5, 0, 0}, {}, 1.0, 1.0));
  world.add(dynamic({0.5, 0, 0}, {}, 1.0, 1.0));
  const double before = 2.0 - 1.0;
  world.step(kDt);
  const SphereBody& a = world.bodies()[0];
  const SphereBody& b = world.bodies()[1];
  EXPECT_LT(2.0 - (b.p - a.p).length(), before);
  EXPECT_EQ(a.v.length(), 0.0);
  EXPECT_EQ(b.v.length(), 0.0);
}

TEST(SpherePhysics, SpinIsCapped) {
  SphereWorld world(ContactConfig{.max_angular = 50});
  SphereBody b = dynamic({}, {}, 1.0, 1.0);
  b.w = {100, 0, 0};
  world.add(b);
  world.step(kDt);
  EXPECT_NEAR(world.bodies()[0].w.length(), 50.0, 1e-9);
}

TEST(SpherePhysics, OverlapsSeesEveryBody) {
  SphereWorld world;
  world.add(fixed({0, 0, 0}, 5.0));
  world.add(dynamic({10, 0, 0}, {}, 1.0, 1.0));
  EXPECT_TRUE(world.overlaps({5.5, 0, 0}, 1.0));
  EXPECT_TRUE(world.overlaps({8.5, 0, 0}, 1.0));
  EXPECT_FALSE(world.overlaps({7.5, 0, 0}, 0.4));
}

}  // namespace
}  // namespace tickwire::bench
