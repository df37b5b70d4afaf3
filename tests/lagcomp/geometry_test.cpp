// Exact ray and sphere tests against each shape, at the edges: tangent
// rays hit (shapes are closed), rays a hair outside miss, a ray starting
// inside hits at distance 0, and max_distance is inclusive. The values are
// chosen so that the exact answer is representable.

#include "tickwire/lagcomp/geometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tickwire::lagcomp {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
// A step well above float rounding at these magnitudes, far below anything
// a game would call a hit.
constexpr float kHair = 1e-3F;

Ray ray(Vec3 o, Vec3 d, float max = kInf) { return Ray{o, d, max}; }

TEST(RaySphere, HitsHeadOnAtTheSurface) {
  const Shape s = Shape::sphere({0, 0, 0}, 1);
  const auto d = ray_distance(s, ray({-5, 0, 0}, {1, 0, 0}));
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, 4.0);
}

TEST(RaySphere, TangentRayHitsAndOneAHairOutsideMisses) {
  const Shape s = Shape::sphere({0, 0, 0}, 1);
  const auto tangent = ray_distance(s, ray({-5, 1, 0}, {1, 0, 0}));
  ASSERT_TRUE(tangent);
  EXPECT_EQ(*tangent, 5.0);
  EXPECT_FALSE(ray_distance(s, ray({-5, 1 + kHair, 0}, {1, 0, 0})));
  EXPECT_TRUE(ray_distance(s, ray({-5, 1 - kHair, 0}, {1, 0, 0})));
}

TEST(RaySphere, DirectionNeedNotBeUnit) {
  const Shape s = Shape::sphere({0, 0, 0}, 1);
  const auto d = ray_distance(s, ray({-5, 0, 0}, {8, 0, 0}));
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, 4.0);
}

TEST(RaySphere, PointingAwayMisses) {
  const Shape s = Shape::sphere({0, 0, 0}, 1);
  EXPECT_FALSE(ray_distance(s, ray({-5, 0, 0}, {-1, 0, 0})));
}

TEST(RaySphere, StartingInsideOrOnTheSurfaceHitsAtZero) {
  const Shape s = Shape::sphere({0, 0, 0}, 1);
  EXPECT_EQ(ray_distance(s, ray({0.5F, 0, 0}, {-1, 0, 0})), 0.0);
  EXPECT_EQ(ray_distance(s, ray({1, 0, 0}, {1, 0, 0})), 0.0);
}

TEST(RaySphere, MaxDistanceIsInclusive) {
  const Shape s = Shape::sphere({0, 0, 0}, 1);
  EXPECT_TRUE(ray_distance(s, ray({-5, 0, 0}, {1, 0, 0}, 4.0F)));
  EXPECT_FALSE(ray_distance(s, ray({-5, 0, 0}, {1, 0, 0}, 4.0F - kHair)));
}

TEST(RayCapsule, HitsTheSideAndBothCaps) {
  const Shape c = Shape::capsule({0, -1, 0}, {0, 1, 0}, 0.5F);
  EXPECT_EQ(ray_distance(c, ray({-5, 0, 0}, {1, 0, 0})), 4.5);   // side
  EXPECT_EQ(ray_distance(c, ray({0, 10, 0}, {0, -1, 0})), 8.5);  // top cap, along the axis
  EXPECT_EQ(ray_distance(c, ray({0, -10, 0}, {0, 1, 0})), 8.5);  // bottom cap
  EXPECT_EQ(ray_distance(c, ray({-5, 1.25F, 0}, {1, 0, 0})), 5.0 - std::sqrt(0.25 - 0.0625));  // over the cap
}

TEST(RayCapsule, TangentToTheSideHitsAndAHairOutsideMisses) {
  const Shape c = Shape::capsule({0, -1, 0}, {0, 1, 0}, 1);
  EXPECT_EQ(ray_distance(c, ray({-5, 0, 1}, {1, 0, 0})), 5.0);
  EXPECT_FALSE(ray_distance(c, ray({-5, 0, 1 + kHair}, {1, 0, 0})));
}

TEST(RayCapsule, TangentToACapHitsAndAHairAboveMisses) {
  const Shape c = Shape::capsule({0, -1, 0}, {0, 1, 0}, 1);
  EXPECT_EQ(ray_distance(c, ray({-5, 2, 0}, {1, 0, 0})), 5.0);  // the top of the upper cap
  EXPECT_FALSE(ray_distance(c, ray({-5, 2 + kHair, 0}, {1, 0, 0})));
}

TEST(RayCapsule, ParallelToTheAxisOutsideTheRadiusMisses) {
  const Shape c = Shape::capsule({0, -1, 0}, {0, 1, 0}, 1);
  EXPECT_FALSE(ray_distance(c, ray({1 + kHair, -10, 0}, {0, 1, 0})));
  EXPECT_EQ(ray_distance(c, ray({1, -10, 0}, {0, 1, 0})), 9.0);  // grazes the side along its length
}

TEST(RayCapsule, StartingInsideHitsAtZero) {
  const Shape c = Shape::capsule({0, -1, 0}, {0, 1, 0}, 1);
  EXPECT_EQ(ray_distance(c, ray({0, 1.5F, 0}, {1, 0, 0})), 0.0);
}

TEST(RayCapsule, DegenerateCapsuleIsASphere) {
  const Shape c = Shape::capsule({2, 0, 0}, {2, 0, 0}, 1);
  EXPECT_EQ(ray_distance(c, ray({-5, 0, 0}, {1, 0, 0})), 6.0);
  EXPECT_EQ(ray_distance(c, ray({-5, 1, 0}, {1, 0, 0})), 7.0);
}

TEST(RayCapsule, OffAxisAndDiagonalRaysMatchTheClosedForm) {
  const Shape c = Shape::capsule({0, 0, -3}, {0, 0, 3}, 1);
  // Passing the axis at 0.5: enters where it is 1 from the axis.
  const auto off = ray_distance(c, ray({-10, 0.5F, 0}, {1, 0, 0}));
  ASSERT_TRUE(off);
  EXPECT_NEAR(*off, 10.0 - std::sqrt(0.75), 1e-12);
  // Diagonally through the axis.
  const auto diag = ray_distance(c, ray({-10, -10, 1}, {1, 1, 0}));
  ASSERT_TRUE(diag);
  EXPECT_NEAR(*diag, 10.0 * std::sqrt(2.0) - 1.0, 1e-12);
}

TEST(RayBox, HitsAFaceHeadOn) {
  const Shape b = Shape::box({-1, -2, -3}, {1, 2, 3});
  EXPECT_EQ(ray_distance(b, ray({-5, 0, 0}, {1, 0, 0})), 4.0);
  EXPECT_EQ(ray_distance(b, ray({0, 0, 10}, {0, 0, -1})), 7.0);
}

TEST(RayBox, GrazingAFaceHitsAndAHairOutsideMisses) {
  const Shape b = Shape::box({-1, -1, -1}, {1, 1, 1});
  EXPECT_EQ(ray_distance(b, ray({-5, 1, 0}, {1, 0, 0})), 4.0);  // along the top face
  EXPECT_FALSE(ray_distance(b, ray({-5, 1 + kHair, 0}, {1, 0, 0})));
}

TEST(RayBox, AlongAnEdgeHits) {
  const Shape b = Shape::box({-1, -1, -1}, {1, 1, 1});
  EXPECT_EQ(ray_distance(b, ray({-5, 1, 1}, {1, 0, 0})), 4.0);
  EXPECT_FALSE(ray_distance(b, ray({-5, 1, 1 + kHair}, {1, 0, 0})));
}

TEST(RayBox, TouchingOnlyAnEdgeHitsAndAHairAsideMisses) {
  const Shape b = Shape::box({-1, -1, -1}, {1, 1, 1});
  // The line x + y = 2 in the plane z = 0 meets the box only on its edge
  // x = y = 1.
  const auto d = ray_distance(b, ray({3, -1, 0}, {-1, 1, 0}));
  ASSERT_TRUE(d);
  EXPECT_NEAR(*d, 2.0 * std::sqrt(2.0), 1e-12);
  EXPECT_FALSE(ray_distance(b, ray({3 + kHair, -1, 0}, {-1, 1, 0})));
}

TEST(RayBox, StartingInsideHitsAtZero) {
  const Shape b = Shape::box({-1, -1, -1}, {1, 1, 1});
  EXPECT_EQ(ray_distance(b, ray({0, 0, 0}, {0, 1, 0})), 0.0);
  EXPECT_EQ(ray_distance(b, ray({1, 0, 0}, {1, 0, 0})), 0.0);  // on a face, pointing out
}

TEST(RayBox, ParallelOutsideMissesAndBehindMisses) {
  const Shape b = Shape::box({-1, -1, -1}, {1, 1, 1});
  EXPECT_FALSE(ray_distance(b, ray({-5, 2, 0}, {1, 0, 0})));
  EXPECT_FALSE(ray_distance(b, ray({5, 0, 0}, {1, 0, 0})));
}

TEST(RayValidity, BadRaysNeverHit) {
  const Shape s = Shape::sphere({0, 0, 0}, 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(ray_distance(s, ray({-5, 0, 0}, {0, 0, 0})));
  EXPECT_FALSE(ray_distance(s, ray({nan, 0, 0}, {1, 0, 0})));
  EXPECT_FALSE(ray_distance(s, ray({-5, 0, 0}, {kInf, 0, 0})));
  EXPECT_FALSE(ray_distance(s, ray({-5, 0, 0}, {1, 0, 0}, -1.0F)));
  EXPECT_FALSE(ray_distance(s, ray({-5, 0, 0}, {1, 0, 0}, nan)));
  EXPECT_FALSE(ray_distance(s, ray({-2e6F, 0, 0}, {1, 0, 0})));
}

TEST(ShapeValidity, RefusesWhatTheQueriesCannotTrust) {
  EXPECT_TRUE(valid(Shape::sphere({0, 0, 0}, 1)));
  EXPECT_FALSE(valid(Shape::sphere({0, 0, 0}, 0)));
  EXPECT_FALSE(valid(Shape::sphere({0, 0, 0}, -1)));
  EXPECT_FALSE(valid(Shape::sphere({0, std::numeric_limits<float>::quiet_NaN(), 0}, 1)));
  EXPECT_FALSE(valid(Shape::capsule({0, 0, 0}, {0, kInf, 0}, 1)));
  EXPECT_FALSE(valid(Shape::sphere({0, 0, 0}, 2e6F)));
  EXPECT_TRUE(valid(Shape::box({0, 0, 0}, {0, 0, 0})));  // a point is a box
  EXPECT_FALSE(valid(Shape::box({0, 1, 0}, {1, 0, 1})));
}

TEST(DistanceTo, EachShape) {
  EXPECT_EQ(distance_to(Shape::sphere({0, 0, 0}, 1), {3, 0, 0}), 2.0);
  EXPECT_EQ(distance_to(Shape::sphere({0, 0, 0}, 1), {0.5F, 0, 0}), 0.0);
  EXPECT_EQ(distance_to(Shape::capsule({0, -1, 0}, {0, 1, 0}, 1), {3, 0.5F, 0}), 2.0);
  EXPECT_EQ(distance_to(Shape::capsule({0, -1, 0}, {0, 1, 0}, 1), {0, 5, 0}), 3.0);
  EXPECT_EQ(distance_to(Shape::box({-1, -1, -1}, {1, 1, 1}), {4, 5, 1}), 5.0);
  EXPECT_EQ(distance_to(Shape::box({-1, -1, -1}, {1, 1, 1}), {1, 1, 1}), 0.0);
}

TEST(Lerp, MovesEveryPartLinearlyAndStaysInsideBothBounds) {
  const Shape s0 = Shape::capsule({0, 0, 0}, {0, 2, 0}, 0.5F, 7);
  const Shape s1 = Shape::capsule({4, 0, 0}, {4, 1, 0}, 1.5F, 7);
  const Shape mid = lerp(s0, s1, 0.5F);
  EXPECT_EQ(mid.a, (Vec3{2, 0, 0}));
  EXPECT_EQ(mid.b, (Vec3{2, 1.5F, 0}));
  EXPECT_EQ(mid.radius, 1.0F);
  EXPECT_EQ(mid.tag, 7);
  const Aabb both = merge(bounds(s0), bounds(s1));
  for (int i = 0; i <= 16; ++i) {
    const Aabb b = bounds(lerp(s0, s1, static_cast<float>(i) / 16.0F));
    EXPECT_GE(b.min.x, both.min.x);
    EXPECT_GE(b.min.y, both.min.y);
    EXPECT_LE(b.max.x, both.max.x);
    EXPECT_LE(b.max.y, both.max.y);
  }
}

}  // namespace
}  // namespace tickwire::lagcomp
