// The broad phase may skip work, never change an answer: over random
// worlds (moving, teleporting, appearing and vanishing entities of several
// shapes) and random queries, many of them aimed to graze a shape, a ray
// cast or an overlap with the broad phase gives exactly what testing every
// entity gives.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "test_seed.h"
#include "tickwire/lagcomp/hit_history.h"

namespace tickwire::lagcomp {
namespace {

constexpr std::uint32_t kRate = 60;
constexpr std::uint32_t kEntities = 64;

struct Body {
  bool alive = false;
  Vec3 p;
  Vec3 v;
  int layout = 0;
};

std::uint32_t shapes_of(const Body& b, std::array<Shape, 3>& out) {
  const Vec3 p = b.p;
  switch (b.layout) {
    case 0:
      out[0] = Shape::capsule({p.x, p.y + 0.4F, p.z}, {p.x, p.y + 1.4F, p.z}, 0.4F, 2);
      out[1] = Shape::sphere({p.x, p.y + 1.7F, p.z}, 0.2F, 1);
      return 2;
    case 1: out[0] = Shape::box({p.x - 0.5F, p.y, p.z - 0.5F}, {p.x + 0.5F, p.y + 1.0F, p.z + 0.5F}, 3); return 1;
    default:
      out[0] = Shape::capsule({p.x - 0.5F, p.y + 0.3F, p.z}, {p.x + 0.5F, p.y + 0.3F, p.z + 0.2F}, 0.3F, 2);
      out[1] = Shape::sphere({p.x, p.y + 0.9F, p.z}, 0.25F, 1);
      out[2] = Shape::box({p.x - 0.2F, p.y, p.z - 0.2F}, {p.x + 0.2F, p.y + 0.1F, p.z + 0.2F}, 3);
      return 3;
  }
}

Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<float> n(0.0F, 1.0F);
  for (;;) {
    const Vec3 u{n(rng), n(rng), n(rng)};
    const float len = std::sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
    if (len > 1e-3F) return {u.x / len, u.y / len, u.z / len};
  }
}

Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

// A ray through a point on (or next to) the shape's surface, at right
// angles to the way out of it there: tangent to a sphere or an end cap,
// through a corner of a box.
Ray grazing_ray(const Shape& s, std::mt19937_64& rng) {
  const Vec3 u = random_unit(rng);
  Vec3 surface;
  if (s.kind == ShapeKind::kBox) {
    std::uniform_int_distribution<int> bit(0, 1);
    surface = {bit(rng) != 0 ? s.a.x : s.b.x, bit(rng) != 0 ? s.a.y : s.b.y, bit(rng) != 0 ? s.a.z : s.b.z};
  } else {
    const Vec3 c = std::bernoulli_distribution(0.5)(rng) ? s.a : s.b;
    surface = {c.x + u.x * s.radius, c.y + u.y * s.radius, c.z + u.z * s.radius};
  }
  Vec3 w = cross(u, random_unit(rng));
  const float len = std::sqrt(w.x * w.x + w.y * w.y + w.z * w.z);
  w = {w.x / len, w.y / len, w.z / len};
  return Ray{{surface.x + w.x * 30, surface.y + w.y * 30, surface.z + w.z * 30}, {-w.x, -w.y, -w.z}, 1000.0F};
}

TEST(BroadPhase, NeverChangesAnAnswer) {
  std::mt19937_64 rng(::tickwire::testing::test_seed("BroadPhase.NeverChangesAnAnswer"));
  HistoryConfig config;
  config.tick_rate = kRate;
  config.max_entities = kEntities;
  config.max_rewind = Duration::millis(250);
  HitHistory h(config);

  std::uniform_real_distribution<float> place(-20.0F, 20.0F);
  std::uniform_real_distribution<float> speed(-0.3F, 0.3F);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> layout(0, 2);
  std::vector<Body> bodies(kEntities);
  for (Body& b : bodies) {
    b.alive = unit(rng) < 0.8;
    b.p = {place(rng), 0, place(rng)};
    b.v = {speed(rng), speed(rng) * 0.1F, speed(rng)};
    b.layout = layout(rng);
  }

  std::uint64_t rays = 0;
  std::uint64_t hits = 0;
  std::uint64_t blocked = 0;
  std::array<OverlapHit, kEntities> with{};
  std::array<OverlapHit, kEntities> without{};
  for (std::uint32_t t = 0; t < 120; ++t) {
    ASSERT_TRUE(h.begin_tick(Tick(t)).ok());
    for (std::uint32_t i = 0; i < kEntities; ++i) {
      Body& b = bodies[i];
      Motion motion = Motion::kContinuous;
      const double roll = unit(rng);
      if (roll < 0.01) {
        b.alive = !b.alive;
      } else if (roll < 0.03) {
        b.p = {place(rng), 0, place(rng)};
        motion = Motion::kTeleported;
      } else if (roll < 0.04) {
        b.layout = layout(rng);  // the shapes change: no blend this tick
      }
      b.p = {b.p.x + b.v.x, b.p.y + b.v.y, b.p.z + b.v.z};
      if (!b.alive) continue;
      std::array<Shape, 3> s{};
      const std::uint32_t n = shapes_of(b, s);
      ASSERT_TRUE(h.record(EntityId{i}, b.p, std::span<const Shape>(s.data(), n), motion).ok());
    }
    ASSERT_TRUE(h.end_tick().ok());
    if (t < 20) continue;

    const TimeRange range = *h.range();
    const std::int64_t span = range.newest.units() - range.oldest.units();
    for (int q = 0; q < 40; ++q) {
      const auto offset = static_cast<std::int64_t>(unit(rng) * static_cast<double>(span));
      NetworkTime view = NetworkTime::from_ticks_f(
          kRate, static_cast<double>(range.oldest.units() + offset) / static_cast<double>(NetworkTime::kUnitsPerTick));
      if (view < range.oldest) view = range.oldest;
      if (view > range.newest) view = range.newest;

      // Aim: at a shape of a random entity as rewound, or anywhere.
      Ray ray{{place(rng), 5.0F, place(rng)}, random_unit(rng), 1000.0F};
      const auto target = h.rewind(EntityId{static_cast<std::uint32_t>(rng() % kEntities)}, view);
      if (target && unit(rng) < 0.8) {
        ray = grazing_ray(target->shapes[rng() % target->shape_count], rng);
      }
      QueryOptions broad;
      QueryOptions exhaustive;
      exhaustive.broad_phase = false;
      if (unit(rng) < 0.3) broad.ignore = exhaustive.ignore = EntityId{static_cast<std::uint32_t>(rng() % kEntities)};
      const auto a = h.ray_cast(ray, view, broad);
      const auto b = h.ray_cast(ray, view, exhaustive);
      ASSERT_TRUE(a.ok() && b.ok());
      ++rays;
      ASSERT_EQ(a->hit.has_value(), b->hit.has_value()) << "tick " << t << " query " << q;
      EXPECT_LE(a->candidates, b->candidates);
      if (a->hit) {
        ++hits;
        EXPECT_EQ(a->hit->entity, b->hit->entity);
        EXPECT_EQ(a->hit->shape_index, b->hit->shape_index);
        EXPECT_EQ(a->hit->distance, b->hit->distance);
        EXPECT_EQ(a->hit->shape, b->hit->shape);
        EXPECT_EQ(a->hit->teleport_blocked, b->hit->teleport_blocked);
        if (a->hit->teleport_blocked) ++blocked;
      }

      const Vec3 centre = target ? target->position : ray.origin;
      const float radius = static_cast<float>(unit(rng) * 3.0);
      const auto oa = h.overlap_sphere(centre, radius, view, with, broad);
      const auto ob = h.overlap_sphere(centre, radius, view, without, exhaustive);
      ASSERT_TRUE(oa.ok() && ob.ok());
      ASSERT_EQ(oa->total, ob->total);
      // Both walk the tick's entities in one order, so the lists match.
      for (std::size_t k = 0; k < oa->written; ++k) {
        EXPECT_EQ(with[k].entity, without[k].entity);
        EXPECT_EQ(with[k].distance, without[k].distance);
        EXPECT_EQ(with[k].shape_index, without[k].shape_index);
      }
    }
  }
  // The queries must have exercised what they claim to.
  EXPECT_GT(hits, rays / 4);
  EXPECT_GT(blocked, 0U);
  std::printf("%llu rays, %llu hits, %llu through a teleport-blocked rewind\n", static_cast<unsigned long long>(rays),
              static_cast<unsigned long long>(hits), static_cast<unsigned long long>(blocked));
}

}  // namespace
}  // namespace tickwire::lagcomp
