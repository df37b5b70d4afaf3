// Snap thresholds per field, and the size of each correction as drawn,
// on the smoother alone: one entity drawn, corrected, drawn again.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "test_game.h"
#include "tickwire/prediction/client_prediction.h"
#include "tickwire/prediction/render_smoother.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;

struct Rig {
  testing::TestSchema s;
  snapshot::World w{s.schema};
  EntityId id = w.spawn(s.player);
  std::vector<std::uint32_t> out = std::vector<std::uint32_t>(s.schema.type(s.player).stride());

  std::vector<MotionFields> motion() const { return {MotionFields::of(s.position, s.velocity, 0.5F)}; }

  std::vector<std::uint32_t> state(Vec2 position, Vec2 velocity) {
    w.set(id, s.position, position);
    w.set(id, s.velocity, velocity);
    const auto slots = w.slots(id);
    return {slots.begin(), slots.end()};
  }

  // Draws the entity at rest at tick 10, corrects it, and draws it at
  // tick 11 on a trajectory that puts it at `position` with `velocity`.
  void correct(RenderSmoother& sm, Vec2 position, Vec2 velocity) {
    const auto before = state({0, 0}, {0, 0});
    sm.draw(id, s.player, 10.0, before, {}, out);
    sm.corrected(id);
    const auto after = state(position, velocity);
    sm.draw(id, s.player, 11.0, after, after, out);
  }

  Vec2 drawn_position() {
    std::copy(out.begin(), out.end(), w.slots(id).begin());
    return w.get(id, s.position);
  }
};

SmoothingConfig snap_at(float distance) {
  SmoothingConfig c;
  c.snap_distance = distance;
  return c;
}

TEST(SnapThresholds, AVelocityNeverSnapsByDefault) {
  Rig r;
  RenderSmoother sm(r.s.schema, snap_at(2.0F), 60, r.motion());
  r.correct(sm, {0.5F, 0}, {10, 0});  // a kick: the velocity changes by 10, past the snap distance
  EXPECT_EQ(sm.snaps(), 0U);
  EXPECT_EQ(sm.smoothing(), 1U);
  EXPECT_LT(r.drawn_position().x, 0.5F);  // slides from where it was drawn
}

TEST(SnapThresholds, APositionBeyondTheSnapDistanceSnaps) {
  Rig r;
  RenderSmoother sm(r.s.schema, snap_at(2.0F), 60, r.motion());
  r.correct(sm, {3, 0}, {0, 0});
  EXPECT_EQ(sm.snaps(), 1U);
  EXPECT_EQ(sm.smoothing(), 0U);
  EXPECT_FLOAT_EQ(r.drawn_position().x, 3.0F);
}

TEST(SnapThresholds, TheLengthOfThePositionErrorIsCompared) {
  Rig r;
  RenderSmoother sm(r.s.schema, snap_at(2.0F), 60, r.motion());
  r.correct(sm, {1.5F, 1.5F}, {0, 0});  // each axis within 2, the distance 2.12 beyond
  EXPECT_EQ(sm.snaps(), 1U);
}

TEST(SnapThresholds, AVelocityThresholdStatedByTheGameSnaps) {
  Rig r;
  SmoothingConfig c = snap_at(2.0F);
  c.thresholds = {SnapThreshold::of(r.s.velocity, 5.0F)};
  RenderSmoother sm(r.s.schema, c, 60, r.motion());
  r.correct(sm, {0.5F, 0}, {10, 0});
  EXPECT_EQ(sm.snaps(), 1U);
}

TEST(SnapThresholds, AThresholdOnThePositionReplacesTheSnapDistance) {
  Rig r;
  SmoothingConfig c = snap_at(2.0F);
  c.thresholds = {SnapThreshold::of(r.s.position, 10.0F)};
  RenderSmoother sm(r.s.schema, c, 60, r.motion());
  r.correct(sm, {3, 0}, {0, 0});
  EXPECT_EQ(sm.snaps(), 0U);
  EXPECT_EQ(sm.smoothing(), 1U);
}

TEST(SnapThresholds, ATypeWithoutMotionFieldsSnapsOnlyOnStatedThresholds) {
  Rig r;
  RenderSmoother sm(r.s.schema, snap_at(2.0F), 60);
  r.correct(sm, {3, 0}, {10, 0});
  EXPECT_EQ(sm.snaps(), 0U);
  EXPECT_EQ(sm.correction_sizes().count(), 0U);  // nothing says where it is
}

TEST(SnapThresholds, BadThresholdsAndMotionFieldsAreRejected) {
  const testing::TestSchema s;
  const auto rejects = [&](SmoothingConfig c, std::vector<MotionFields> motion = {}) {
    EXPECT_THROW(RenderSmoother(s.schema, std::move(c), 60, motion), std::invalid_argument);
  };
  rejects(snap_at(0.0F));
  rejects(snap_at(std::numeric_limits<float>::quiet_NaN()));
  SmoothingConfig c;
  c.thresholds = {SnapThreshold::of(s.position, -1.0F)};
  rejects(c);
  c.thresholds = {SnapThreshold{s.player, 60, 2, 1.0F}};  // past the type's slots
  rejects(c);
  c.thresholds = {SnapThreshold{TypeId{99}, 0, 2, 1.0F}};
  rejects(c);
  MotionFields bad = MotionFields::of(s.position);
  bad.dimensions = 4;
  rejects({}, {bad});
  bad = MotionFields::of(s.position);
  bad.velocity_offset = 200;
  rejects({}, {bad});

  // The same checks guard the prediction that owns the smoother.
  testing::TestGame game(s);
  PredictionConfig pc;
  pc.input_type = s.input;
  pc.smoothing.thresholds = {SnapThreshold{s.player, 60, 2, 1.0F}};
  EXPECT_THROW(ClientPrediction(
                   s.schema, game, [](Tick, snapshot::Record&) {}, pc),
               std::invalid_argument);
}

TEST(CorrectionSizes, RecordsHowFarACorrectionMovedTheTrajectory) {
  Rig r;
  RenderSmoother sm(r.s.schema, {}, 60, r.motion());
  r.correct(sm, {3, 4}, {0, 0});
  ASSERT_EQ(sm.correction_sizes().count(), 1U);
  EXPECT_NEAR(sm.correction_sizes().quantile(0.5), 5.0, 1e-5);
  // A correction that left the trajectory as it was is not one.
  sm.corrected(r.id);
  const auto same = r.state({3, 4}, {0, 0});
  sm.draw(r.id, r.s.player, 12.0, same, same, r.out);
  EXPECT_EQ(sm.correction_sizes().count(), 1U);
}

TEST(CorrectionSizes, QuantilesCoverTheNewestWindow) {
  CorrectionSizes sizes;
  EXPECT_EQ(sizes.quantile(0.5), 0.0);
  for (int i = 1; i <= 100; ++i) sizes.record(static_cast<float>(i));
  EXPECT_EQ(sizes.quantile(0.5), 50.0);
  EXPECT_EQ(sizes.quantile(0.99), 99.0);
  EXPECT_EQ(sizes.quantile(1.0), 100.0);
  // The window forgets the oldest: after kWindow small ones, the large are gone.
  for (std::size_t i = 0; i < CorrectionSizes::kWindow; ++i) sizes.record(0.5F);
  EXPECT_EQ(sizes.quantile(0.99), 0.5);
  EXPECT_EQ(sizes.count(), 100U + CorrectionSizes::kWindow);
}

SmoothingConfig paced_at(float speed) {
  SmoothingConfig c;
  c.max_correction_speed = speed;  // duration stays 100 ms: 6 ticks at 60 Hz
  return c;
}

TEST(CorrectionPace, AVelocityIsDrawnAsCorrectedAtOnce) {
  Rig r;
  RenderSmoother sm(r.s.schema, SmoothingConfig{}, 60, r.motion());
  r.correct(sm, {0.5F, 0}, {10, 0});
  std::copy(r.out.begin(), r.out.end(), r.w.slots(r.id).begin());
  EXPECT_FLOAT_EQ(r.w.get(r.id, r.s.velocity).x, 10.0F);  // the kick, at once
  EXPECT_LT(r.drawn_position().x, 0.5F);                 // the position still slides
}

TEST(CorrectionPace, ALargeErrorFadesNoFasterThanTheMaxCorrectionSpeed) {
  Rig r;
  RenderSmoother sm(r.s.schema, paced_at(6.0F), 60, r.motion());  // 0.1 a tick
  r.correct(sm, {3, 0}, {0, 0});
  float last = r.drawn_position().x;
  EXPECT_NEAR(last, 0.1F, 1e-4F);  // one tick of the 30 that 3 units take
  const auto after = r.state({3, 0}, {0, 0});
  for (int tick = 12; tick <= 40; ++tick) {
    sm.draw(r.id, r.s.player, tick, after, {}, r.out);
    const float x = r.drawn_position().x;
    EXPECT_LE(x - last, 0.1F + 1e-4F) << "tick " << tick;
    last = x;
  }
  EXPECT_FLOAT_EQ(last, 3.0F);
}

TEST(CorrectionPace, ASmallErrorStillFadesOverTheDuration) {
  Rig r;
  RenderSmoother sm(r.s.schema, paced_at(6.0F), 60, r.motion());
  r.correct(sm, {0.3F, 0}, {0, 0});  // 3 ticks at the pace: the 6-tick duration rules
  EXPECT_NEAR(r.drawn_position().x, 0.05F, 1e-4F);
}

TEST(CorrectionPace, ASpeedThatIsNotPositiveIsRejected) {
  const testing::TestSchema s;
  for (const float bad : {0.0F, -1.0F, std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_THROW(RenderSmoother(s.schema, paced_at(bad), 60), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace tickwire::prediction
