// The benchmark's asteroids scene: spawned as published, deterministic for
// a seed, kept out of the planetoid, and spun by its contacts.

#include <gtest/gtest.h>

#include <cstdio>

#include "asteroids.h"
#include "tickwire/snapshot/world.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::bench {
namespace {

constexpr std::uint64_t kSeed = 11;

void run(Asteroids& scene, snapshot::World& world, int ticks) {
  for (int i = 0; i < ticks; ++i) scene.step(world);
}

TEST(AsteroidsScene, SpawnsAsPublished) {
  Asteroids scene(kSeed);
  snapshot::World world(scene.schema());
  scene.setup(world);
  const auto& bodies = scene.physics().bodies();
  ASSERT_EQ(bodies.size(), Asteroids::kCount + 1U);
  EXPECT_EQ(bodies[0].inv_mass, 0.0);  // the planetoid is static
  EXPECT_EQ(bodies[0].radius, Asteroids::kPlanetRadius);
  EXPECT_NEAR(Asteroids::bounds(), 31.5, 0.01);
  for (std::size_t i = 1; i < bodies.size(); ++i) {
    const SphereBody& b = bodies[i];
    const double scale = b.radius / 0.8;
    EXPECT_GE(scale, 0.25);
    EXPECT_LT(scale, 1.0);
    EXPECT_NEAR(1.0 / b.inv_mass, scale * scale * scale, 1e-12);  // mass = scale^3
    EXPECT_GE(b.v.length(), 1.0 - 1e-9);
    EXPECT_LT(b.v.length(), 4.0);
    for (std::size_t j = 0; j < i; ++j) {  // spawn points are pushed clear of what is there
      EXPECT_GE((b.p - bodies[j].p).length(), b.radius + bodies[j].radius) << i << " overlaps " << j;
    }
  }
  EXPECT_EQ(world.size(), static_cast<std::size_t>(Asteroids::kCount));
}

TEST(AsteroidsScene, TheSameSeedGivesTheSameRun) {
  Asteroids first(kSeed);
  Asteroids second(kSeed);
  Asteroids other(kSeed + 1);
  snapshot::World w1(first.schema());
  snapshot::World w2(second.schema());
  snapshot::World w3(other.schema());
  first.setup(w1);
  second.setup(w2);
  other.setup(w3);
  run(first, w1, 600);
  run(second, w2, 600);
  run(other, w3, 600);
  for (std::size_t i = 0; i < first.physics().bodies().size(); ++i) {
    const SphereBody& a = first.physics().bodies()[i];
    const SphereBody& b = second.physics().bodies()[i];
    ASSERT_EQ(a.p.x, b.p.x);
    ASSERT_EQ(a.p.y, b.p.y);
    ASSERT_EQ(a.p.z, b.p.z);
    ASSERT_EQ(a.w.x, b.w.x);
    ASSERT_EQ(a.q[3], b.q[3]);
  }
  snapshot::WorldState s1;
  snapshot::WorldState s2;
  snapshot::WorldState s3;
  snapshot::capture(w1, Tick(600), s1);
  snapshot::capture(w2, Tick(600), s2);
  snapshot::capture(w3, Tick(600), s3);
  EXPECT_TRUE(s1.same_content(s2, first.schema()));
  EXPECT_FALSE(s1.same_content(s3, first.schema()));
}

TEST(AsteroidsScene, ContactsChangeSpinsAndThePlanetoidKeepsAsteroidsOut) {
  Asteroids scene(kSeed);
  snapshot::World world(scene.schema());
  scene.setup(world);
  std::vector<V3> spins;
  for (const SphereBody& b : scene.physics().bodies()) spins.push_back(b.w);
  int touched_planetoid = 0;
  double deepest = 0;
  for (int tick = 0; tick < 60 * 30; ++tick) {
    scene.step(world);
    const auto& bodies = scene.physics().bodies();
    for (std::size_t i = 1; i < bodies.size(); ++i) {
      const double gap = bodies[i].p.length() - Asteroids::kPlanetRadius - bodies[i].radius;
      deepest = std::min(deepest, gap);
      if (gap < 0.01) ++touched_planetoid;
    }
  }
  int changed = 0;
  const auto& bodies = scene.physics().bodies();
  for (std::size_t i = 1; i < bodies.size(); ++i) changed += (bodies[i].w - spins[i]).length() > 0.01 ? 1 : 0;
  std::printf("after 30 s: %d of %d spins changed, %d asteroid-steps at the planetoid, deepest %.4f m\n", changed,
              Asteroids::kCount, touched_planetoid, -deepest);
  EXPECT_GT(changed, Asteroids::kCount / 4);
  EXPECT_GT(scene.physics().stats().sliding, 0U);
  EXPECT_GT(touched_planetoid, 0);
  // Contact is found once bodies overlap, so an asteroid can sink about one
  // step's travel (4 m/s / 60) before it is pushed out; never more.
  EXPECT_GT(deepest, -0.1);
}

TEST(AsteroidsScene, AsteroidsStayWithinTheSchemasRange) {
  Asteroids scene(kSeed);
  snapshot::World world(scene.schema());
  scene.setup(world);
  for (int tick = 0; tick < 60 * 60; ++tick) {
    scene.step(world);
    for (const SphereBody& b : scene.physics().bodies()) {
      ASSERT_LT(std::max({std::fabs(b.p.x), std::fabs(b.p.y), std::fabs(b.p.z)}), 64.0) << "tick " << tick;
    }
  }
}

}  // namespace
}  // namespace tickwire::bench
