// The history: what a query sees at a view time. Sub-tick blending,
// expiry, appearing and vanishing entities, teleports, reused ids, and the
// errors recording and queries report.

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <stdexcept>

#include "history_fixture.h"
#include "tickwire/lagcomp/geometry.h"

namespace tickwire::lagcomp {
namespace {

using testing::at;
using testing::ball;
using testing::id;
using testing::Placed;
using testing::record_tick;
using testing::small_config;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Entity 1 moves one unit along x per tick: x = tick.
HitHistory moving_history(std::uint32_t ticks) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < ticks; ++t) record_tick(h, t, {{id(1), {static_cast<float>(t), 0, 0}}});
  return h;
}

// A ray straight down (along -y) at x, from above the entity.
Ray down_at(float x) { return Ray{{x, 10, 0}, {0, -1, 0}, kInf}; }

TEST(HitHistory, RewindsToARecordedTick) {
  const HitHistory h = moving_history(10);
  const auto e = h.rewind(id(1), at(7));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->position, (Vec3{7, 0, 0}));
  ASSERT_EQ(e->shape_count, 1U);
  EXPECT_EQ(e->shapes[0], ball({7, 0, 0}));
  EXPECT_FALSE(e->teleport_blocked);
}

TEST(HitHistory, BlendsShapesBetweenTheTwoTicksAroundTheViewTime) {
  const HitHistory h = moving_history(10);
  const auto e = h.rewind(id(1), at(7, 1));  // 7.25
  ASSERT_TRUE(e);
  EXPECT_EQ(e->position, (Vec3{7.25F, 0, 0}));
  EXPECT_EQ(e->shapes[0], ball({7.25F, 0, 0}));
  EXPECT_EQ(h.rewind(id(1), at(8, 3))->position, (Vec3{8.75F, 0, 0}));
}

TEST(HitHistory, RayCastSeesTheSubTickPose) {
  HitHistory h = moving_history(10);
  // At 7.25 the ball spans x in [6.75, 7.75]: a ray at x = 7.75 grazes it.
  const auto graze = h.ray_cast(down_at(7.75F), at(7, 1));
  ASSERT_TRUE(graze.ok());
  ASSERT_TRUE(graze->hit);
  EXPECT_EQ(graze->hit->entity, id(1));
  EXPECT_EQ(graze->hit->distance, 10.0F);
  EXPECT_EQ(graze->hit->point, (Vec3{7.75F, 0, 0}));
  EXPECT_EQ(graze->hit->position, (Vec3{7.25F, 0, 0}));
  EXPECT_EQ(graze->hit->shape, ball({7.25F, 0, 0}));
  EXPECT_EQ(graze->hit->shape.tag, 1);
  // The same ray misses at tick 7 and a hair further out misses at 7.25.
  EXPECT_FALSE(h.ray_cast(down_at(7.75F), at(7))->hit);
  EXPECT_FALSE(h.ray_cast(down_at(7.751F), at(7, 1))->hit);
}

TEST(HitHistory, ClosestHitWinsAndTheShooterIsIgnored) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < 3; ++t) {
    record_tick(h, t, {{id(1), {0, 0, 0}}, {id(2), {5, 0, 0}}, {id(3), {10, 0, 0}}});
  }
  const Ray r{{0, 0, 0}, {1, 0, 0}, kInf};  // from inside entity 1, the shooter
  const auto all = h.ray_cast(r, at(2));
  ASSERT_TRUE(all->hit);
  EXPECT_EQ(all->hit->entity, id(1));
  EXPECT_EQ(all->hit->distance, 0.0F);
  QueryOptions skip_shooter;
  skip_shooter.ignore = id(1);
  const auto shot = h.ray_cast(r, at(2), skip_shooter);
  ASSERT_TRUE(shot->hit);
  EXPECT_EQ(shot->hit->entity, id(2));
  EXPECT_EQ(shot->hit->distance, 4.5F);
  // Short of the first target: nothing.
  const auto short_ray = h.ray_cast(Ray{{0, 0, 0}, {1, 0, 0}, 4.4F}, at(2), skip_shooter);
  EXPECT_FALSE(short_ray->hit);
}

TEST(HitHistory, ReportsTheHitShapeOfSeveral) {
  HitHistory h(small_config());
  const std::array<Shape, 3> body{Shape::sphere({0, 1.7F, 0}, 0.2F, 1),
                                  Shape::capsule({0, 0.3F, 0}, {0, 1.3F, 0}, 0.3F, 2),
                                  Shape::box({-0.5F, 0, -0.5F}, {0.5F, 0.1F, 0.5F}, 3)};
  ASSERT_TRUE(h.begin_tick(Tick(0)).ok());
  ASSERT_TRUE(h.record(id(4), {0, 0, 0}, body).ok());
  ASSERT_TRUE(h.end_tick().ok());
  const auto head = h.ray_cast(Ray{{-5, 1.7F, 0}, {1, 0, 0}, kInf}, at(0));
  ASSERT_TRUE(head->hit);
  EXPECT_EQ(head->hit->shape_index, 0U);
  EXPECT_EQ(head->hit->shape.tag, 1);
  const auto torso = h.ray_cast(Ray{{-5, 1.0F, 0}, {1, 0, 0}, kInf}, at(0));
  EXPECT_EQ(torso->hit->shape.tag, 2);
  const auto feet = h.ray_cast(Ray{{-5, 0.05F, 0}, {1, 0, 0}, kInf}, at(0));
  EXPECT_EQ(feet->hit->shape.tag, 3);
  EXPECT_EQ(feet->hit->distance, 4.5F);
}

TEST(HitHistory, KeepsMaxRewindAndForgetsWhatIsOlder) {
  HitHistory h = moving_history(40);
  const auto r = h.range();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->newest, at(39));
  EXPECT_EQ(r->oldest, at(34));  // 100 ms at 50 Hz: 5 ticks
  EXPECT_TRUE(h.rewind(id(1), at(34)));
  EXPECT_FALSE(h.rewind(id(1), at(33, 3)));
  const auto too_old = h.ray_cast(down_at(33), at(33));
  ASSERT_FALSE(too_old.ok());
  EXPECT_EQ(too_old.error().code, ErrorCode::kOutOfRange);
  const auto future = h.ray_cast(down_at(39), at(39, 1));
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.error().code, ErrorCode::kOutOfRange);
  EXPECT_EQ(h.frame_capacity(), 7U);
}

TEST(HitHistory, RangeStartsAtTheFirstTickUntilTheWindowFills) {
  HitHistory h = moving_history(3);
  EXPECT_EQ(h.range()->oldest, at(0));
  EXPECT_EQ(h.range()->newest, at(2));
  const HitHistory empty(small_config());
  EXPECT_FALSE(empty.range());
  EXPECT_EQ(empty.ray_cast(down_at(0), at(0)).error().code, ErrorCode::kOutOfRange);
}

TEST(HitHistory, ATeleportIsNeverBlendedAcrossNorRewoundPast) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < 5; ++t) record_tick(h, t, {{id(1), {static_cast<float>(t), 0, 0}}});
  record_tick(h, 5, {{id(1), {100, 0, 0}, Motion::kTeleported}});
  record_tick(h, 6, {{id(1), {101, 0, 0}}});
  // Before the teleport: the entity where it landed, unblended.
  for (const NetworkTime& t : {at(2), at(3, 2), at(4), at(4, 3)}) {
    const auto e = h.rewind(id(1), t);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->position, (Vec3{100, 0, 0}));
    EXPECT_TRUE(e->teleport_blocked);
  }
  // From the teleport on: as recorded, blended.
  EXPECT_EQ(h.rewind(id(1), at(5))->position, (Vec3{100, 0, 0}));
  EXPECT_FALSE(h.rewind(id(1), at(5))->teleport_blocked);
  EXPECT_EQ(h.rewind(id(1), at(5, 2))->position, (Vec3{100.5F, 0, 0}));
  // A shot at where it was before the teleport misses; at where it landed, hits.
  const auto old_place = h.ray_cast(down_at(3.5F), at(3, 2));
  EXPECT_FALSE(old_place->hit);
  EXPECT_EQ(old_place->teleport_blocked, 0U);  // the broad phase never tested it
  const auto new_place = h.ray_cast(down_at(100), at(3, 2));
  ASSERT_TRUE(new_place->hit);
  EXPECT_TRUE(new_place->hit->teleport_blocked);
  EXPECT_EQ(new_place->teleport_blocked, 1U);
  // Nothing on the way between the two places.
  EXPECT_FALSE(h.ray_cast(down_at(50), at(4, 2))->hit);
}

// For telling a miss the teleport rule caused from a plain one: with
// cross_teleports, the entity as it was at the view time, never blended
// into the teleport, still reported as blocked; refused with the broad
// phase on (its boxes hold only what a query may hit).
TEST(HitHistory, CrossingTeleportsShowsThePoseBeforeThem) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < 5; ++t) record_tick(h, t, {{id(1), {static_cast<float>(t), 0, 0}}});
  record_tick(h, 5, {{id(1), {100, 0, 0}, Motion::kTeleported}});
  const QueryOptions cross{.ignore = std::nullopt, .broad_phase = false, .cross_teleports = true};
  const auto before = h.ray_cast(down_at(3.5F), at(3, 2), cross);
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(before->hit);
  EXPECT_TRUE(before->hit->teleport_blocked);
  EXPECT_FLOAT_EQ(before->hit->position.x, 3.5F);
  // A quarter into the tick before the teleport: held there, not blended.
  const auto last = h.ray_cast(down_at(4), at(4, 1), cross);
  ASSERT_TRUE(last.ok() && last->hit);
  EXPECT_FLOAT_EQ(last->hit->position.x, 4.0F);
  EXPECT_FALSE(
      h.ray_cast(down_at(3.5F), at(3, 2), {.ignore = std::nullopt, .broad_phase = true, .cross_teleports = true}).ok());
}

TEST(HitHistory, TheLatestTeleportBlocks) {
  HitHistory h(small_config());
  record_tick(h, 0, {{id(1), {0, 0, 0}}});
  record_tick(h, 1, {{id(1), {10, 0, 0}, Motion::kTeleported}});
  record_tick(h, 2, {{id(1), {20, 0, 0}, Motion::kTeleported}});
  record_tick(h, 3, {{id(1), {21, 0, 0}}});
  EXPECT_EQ(h.rewind(id(1), at(0))->position, (Vec3{20, 0, 0}));
  EXPECT_EQ(h.rewind(id(1), at(1, 2))->position, (Vec3{20, 0, 0}));
  EXPECT_EQ(h.rewind(id(1), at(2, 2))->position, (Vec3{20.5F, 0, 0}));
}

TEST(HitHistory, AnEntityNotYetRecordedIsNotThere) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < 6; ++t) {
    std::vector<Placed> placed{{id(1), {0, 0, 0}}};
    if (t >= 3) placed.push_back({id(2), {5, 0, 0}});
    record_tick(h, t, placed);
  }
  EXPECT_FALSE(h.rewind(id(2), at(2, 3)));
  EXPECT_FALSE(h.ray_cast(down_at(5), at(2, 3))->hit);
  EXPECT_TRUE(h.ray_cast(down_at(5), at(3))->hit);
}

TEST(HitHistory, AVanishedEntityIsHeldUntilTheNextTickThenGone) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < 6; ++t) {
    std::vector<Placed> placed{{id(1), {0, 0, 0}}};
    if (t <= 3) placed.push_back({id(2), {5 + static_cast<float>(t), 0, 0}});
    record_tick(h, t, placed);
  }
  EXPECT_EQ(h.rewind(id(2), at(2, 2))->position, (Vec3{7.5F, 0, 0}));
  EXPECT_EQ(h.rewind(id(2), at(3, 2))->position, (Vec3{8, 0, 0}));  // held: no next tick to blend toward
  EXPECT_TRUE(h.ray_cast(down_at(8), at(3, 2))->hit);
  EXPECT_FALSE(h.rewind(id(2), at(4)));
  EXPECT_FALSE(h.ray_cast(down_at(8), at(4))->hit);
}

TEST(HitHistory, ANewLifeUnderAReusedIdIsAnotherEntity) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < 3; ++t) record_tick(h, t, {{id(1), {0, 0, 0}}});
  record_tick(h, 3, {{id(1), {50, 0, 0}, Motion::kNewLife}});
  record_tick(h, 4, {{id(1), {51, 0, 0}}});
  // The old life held to its last tick, never blended toward the new one
  // and never blocked by it.
  const auto old_life = h.rewind(id(1), at(2, 2));
  EXPECT_EQ(old_life->position, (Vec3{0, 0, 0}));
  EXPECT_FALSE(old_life->teleport_blocked);
  EXPECT_EQ(h.rewind(id(1), at(3, 2))->position, (Vec3{50.5F, 0, 0}));
}

TEST(HitHistory, ChangedShapesSwitchAtTheNearerTickInsteadOfBlending) {
  HitHistory h(small_config());
  const Shape standing = Shape::capsule({0, 0.5F, 0}, {0, 1.5F, 0}, 0.5F);
  const std::array<Shape, 2> crouched{Shape::box({-0.5F, 0, -0.5F}, {0.5F, 1, 0.5F}), ball({0, 1.2F, 0})};
  ASSERT_TRUE(h.begin_tick(Tick(0)).ok());
  ASSERT_TRUE(h.record(id(1), {0, 0, 0}, {&standing, 1}).ok());
  ASSERT_TRUE(h.end_tick().ok());
  ASSERT_TRUE(h.begin_tick(Tick(1)).ok());
  ASSERT_TRUE(h.record(id(1), {0, 0, 0}, crouched).ok());
  ASSERT_TRUE(h.end_tick().ok());
  EXPECT_EQ(h.rewind(id(1), at(0, 1))->shape_span().size(), 1U);
  EXPECT_EQ(h.rewind(id(1), at(0, 2))->shape_span().size(), 2U);
  EXPECT_EQ(h.rewind(id(1), at(0, 3))->shapes[0], crouched[0]);
}

TEST(HitHistory, OverlapFindsEveryEntityWithinTheSphereOnceWithItsNearestShape) {
  HitHistory h(small_config());
  for (std::uint32_t t = 0; t < 2; ++t) {
    record_tick(h, t, {{id(1), {0, 0, 0}}, {id(2), {3, 0, 0}}, {id(3), {4, 0, 0}}, {id(4), {10, 0, 0}}});
  }
  std::array<OverlapHit, 8> out{};
  // Radius 2.5 around x = 1: entity 1 (0.5 away from its surface... inside), 2 (1.5), 3 (2.5, touching); not 4.
  const auto r = h.overlap_sphere({1, 0, 0}, 2.5F, at(1), out);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total, 3U);
  EXPECT_EQ(r->written, 3U);
  std::array<float, 5> distance{};
  for (std::size_t i = 0; i < r->written; ++i) distance[out[i].entity.value] = out[i].distance;
  EXPECT_EQ(distance[1], 0.5F);
  EXPECT_EQ(distance[2], 1.5F);
  EXPECT_EQ(distance[3], 2.5F);
  // A short output span: the count is still complete.
  const auto few = h.overlap_sphere({1, 0, 0}, 2.5F, at(1), std::span<OverlapHit>(out.data(), 1));
  EXPECT_EQ(few->total, 3U);
  EXPECT_EQ(few->written, 1U);
  EXPECT_EQ(h.overlap_sphere({1, 0, 0}, -1, at(1), out).error().code, ErrorCode::kInvalidArgument);
}

TEST(HitHistory, RecordingErrorsAreReportedAndCounted) {
  HitHistory h(small_config());
  const Shape s = ball({0, 0, 0});
  EXPECT_EQ(h.record(id(1), {0, 0, 0}, {&s, 1}).error().code, ErrorCode::kInvalidArgument);  // no tick open
  EXPECT_FALSE(h.end_tick().ok());
  ASSERT_TRUE(h.begin_tick(Tick(5)).ok());
  EXPECT_FALSE(h.begin_tick(Tick(6)).ok());  // still open
  ASSERT_TRUE(h.record(id(1), {0, 0, 0}, {&s, 1}).ok());
  EXPECT_FALSE(h.record(id(1), {0, 0, 0}, {&s, 1}).ok());  // twice
  EXPECT_FALSE(h.record(id(2), {0, 0, 0}, {}).ok());       // no shapes
  const std::array<Shape, 4> four{s, s, s, s};
  EXPECT_FALSE(h.record(id(2), {0, 0, 0}, four).ok());  // more than max_shapes_per_entity
  const Shape nan_ball = ball({std::numeric_limits<float>::quiet_NaN(), 0, 0});
  EXPECT_FALSE(h.record(id(2), {0, 0, 0}, {&nan_ball, 1}).ok());
  EXPECT_FALSE(h.record(id(2), {kInf, 0, 0}, {&s, 1}).ok());
  for (std::uint32_t i = 2; i <= 8; ++i) ASSERT_TRUE(h.record(id(i), {0, 0, 0}, {&s, 1}).ok());
  EXPECT_EQ(h.record(id(9), {0, 0, 0}, {&s, 1}).error().code, ErrorCode::kTooLarge);
  ASSERT_TRUE(h.end_tick().ok());
  EXPECT_FALSE(h.begin_tick(Tick(5)).ok());  // not after the last
  EXPECT_EQ(h.stats().rejected_records, 7U);
  EXPECT_EQ(h.stats().entity_ticks_recorded, 8U);
}

TEST(HitHistory, ASkippedTickStartsTheHistoryOver) {
  HitHistory h = moving_history(10);
  record_tick(h, 12, {{id(1), {12, 0, 0}}});
  EXPECT_EQ(h.stats().gaps, 1U);
  EXPECT_EQ(h.range()->oldest, at(12));
  EXPECT_FALSE(h.rewind(id(1), at(9)));
}

TEST(HitHistory, QueriesReportBadArguments) {
  HitHistory h = moving_history(3);
  EXPECT_EQ(h.ray_cast(Ray{{0, 0, 0}, {0, 0, 0}, kInf}, at(1)).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(h.ray_cast(down_at(1), NetworkTime::from_tick(60, Tick(1))).error().code, ErrorCode::kInvalidArgument);
}

TEST(HitHistory, RefusesAConfigOutsideItsRanges) {
  const auto with = [](auto change) {
    HistoryConfig c = small_config();
    change(c);
    return c;
  };
  EXPECT_THROW(HitHistory(with([](HistoryConfig& c) { c.tick_rate = 0; })), std::invalid_argument);
  EXPECT_THROW(HitHistory(with([](HistoryConfig& c) { c.max_entities = 0; })), std::invalid_argument);
  EXPECT_THROW(HitHistory(with([](HistoryConfig& c) { c.max_shapes_per_entity = 17; })), std::invalid_argument);
  EXPECT_THROW(HitHistory(with([](HistoryConfig& c) { c.max_rewind = Duration::millis(1001); })),
               std::invalid_argument);
  EXPECT_THROW(HitHistory(with([](HistoryConfig& c) { c.max_rewind = Duration::millis(-1); })), std::invalid_argument);
  EXPECT_NO_THROW(HitHistory(with([](HistoryConfig& c) { c.max_rewind = Duration::zero(); })));
}

TEST(HitHistory, ZeroRewindStillAnswersAtThePresent) {
  HistoryConfig c = small_config();
  c.max_rewind = Duration::zero();
  HitHistory h(c);
  for (std::uint32_t t = 0; t < 5; ++t) record_tick(h, t, {{id(1), {static_cast<float>(t), 0, 0}}});
  EXPECT_EQ(h.range()->oldest, at(4));
  EXPECT_TRUE(h.ray_cast(down_at(4), at(4))->hit);
  EXPECT_FALSE(h.ray_cast(down_at(4), at(3)).ok());
}

}  // namespace
}  // namespace tickwire::lagcomp
