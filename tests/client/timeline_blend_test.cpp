// An entity moving at constant speed along x, drawn each frame from the
// timeline it is on: the interpolated one trails the predicted one by a
// fixed gap. Switching between them must never move the drawing further
// in a frame than the entity moves plus the blend's share of the gap.

#include "tickwire/client/timeline_blend.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tickwire/snapshot/field_value.h"

namespace tickwire::client {
namespace {

using snapshot::EntityId;
using snapshot::Vec2;

struct Scene {
  snapshot::Schema schema;
  snapshot::TypeId type;
  snapshot::Field<Vec2> position;
  snapshot::Field<Vec2> velocity;
  snapshot::Field<std::int32_t> teleports;
  std::vector<prediction::MotionFields> motion;
  snapshot::World view;
  EntityId id{3};

  Scene() : view(make()) {
    motion.push_back(prediction::MotionFields::of(position, velocity, 0.5F));
    view.spawn_at(id, type);
  }
  snapshot::Schema make() {
    snapshot::SchemaBuilder b;
    snapshot::TypeBuilder t = b.entity_type("thing");
    position = t.add_vec2("position", {-1000, -1000}, {1000, 1000}, 0.01F);
    velocity = t.add_vec2("velocity", {-50, -50}, {50, 50}, 0.01F);
    teleports = t.add_int("teleports", 0, 3, snapshot::Interpolation::kTeleportCounter);
    type = t.id();
    schema = b.build();
    return schema;
  }
  // Draws the entity at `x` moving at `speed`, as a timeline would.
  void draw(float x, float speed) {
    view.set(id, position, Vec2{x, 0.0F});
    view.set(id, velocity, Vec2{speed, 0.0F});
  }
  float drawn_x() const { return view.get(id, position).x; }
};

constexpr float kSpeed = 6.0F;
constexpr float kGap = 1.5F;  // the predicted timeline leads by this
constexpr double kFrame = 1.0 / 60.0;

Time frame_time(int frame) { return Time::from_micros(1'000'000 + std::llround(frame * kFrame * 1e6)); }

// Runs 60 frames; the entity is on the predicted timeline from frame
// `switch_at` on when `into_prediction`, until it otherwise. Returns the
// largest frame-to-frame step drawn.
float largest_step(bool into_prediction, Duration blend_time, int switch_at = 20) {
  Scene s;
  TimelineBlend blend(s.schema, s.motion, blend_time);
  float largest = 0.0F;
  std::optional<float> last;
  for (int f = 0; f < 60; ++f) {
    const float interpolated = kSpeed * static_cast<float>(f * kFrame);
    const bool predicted = (f >= switch_at) == into_prediction;
    if (f == switch_at) blend.switched(s.id, s.view);  // between frames, after a snapshot
    s.draw(predicted ? interpolated + kGap : interpolated, kSpeed);
    blend.apply(s.view, frame_time(f));
    if (last) largest = std::max(largest, std::fabs(s.drawn_x() - *last));
    last = s.drawn_x();
  }
  return largest;
}

// What it moves in a frame, plus the gap spread over the blend's frames,
// plus rounding.
float bound(Duration blend_time) {
  return kSpeed * static_cast<float>(kFrame) + kGap * static_cast<float>(kFrame / blend_time.seconds_f()) + 1e-3F;
}

TEST(TimelineBlend, SwitchingIntoPredictionNeverJumps) {
  const Duration blend = Duration::millis(200);
  EXPECT_LE(largest_step(true, blend), bound(blend));
}

TEST(TimelineBlend, SwitchingOutOfPredictionNeverJumps) {
  const Duration blend = Duration::millis(200);
  EXPECT_LE(largest_step(false, blend), bound(blend));
}

TEST(TimelineBlend, ZeroBlendJumps) {
  EXPECT_NEAR(largest_step(true, Duration::zero()), kGap + kSpeed * kFrame, 1e-3F);
}

TEST(TimelineBlend, TheFirstFrameContinuesTheOldTimelineAndTheOffsetFadesToZero) {
  Scene s;
  TimelineBlend blend(s.schema, s.motion, Duration::millis(100));
  s.draw(10.0F, kSpeed);
  blend.apply(s.view, frame_time(0));
  blend.switched(s.id, s.view);
  EXPECT_TRUE(blend.blending(s.id));
  s.draw(10.0F + kSpeed * static_cast<float>(kFrame) + kGap, kSpeed);
  blend.apply(s.view, frame_time(1));
  EXPECT_NEAR(s.drawn_x(), 10.0F + kSpeed * kFrame, 1e-4);
  // 100 ms later the blend is over: the new timeline as it is.
  for (int f = 2; f <= 8; ++f) {
    s.draw(10.0F + kSpeed * static_cast<float>(f * kFrame) + kGap, kSpeed);
    blend.apply(s.view, frame_time(f));
  }
  EXPECT_FALSE(blend.blending(s.id));
  EXPECT_NEAR(s.drawn_x(), 10.0F + kSpeed * 8 * kFrame + kGap, 1e-4);
}

TEST(TimelineBlend, ATeleportDuringABlendSnaps) {
  Scene s;
  TimelineBlend blend(s.schema, s.motion, Duration::millis(200));
  s.draw(5.0F, 0.0F);
  blend.apply(s.view, frame_time(0));
  blend.switched(s.id, s.view);
  s.draw(6.0F, 0.0F);
  blend.apply(s.view, frame_time(1));
  EXPECT_NEAR(s.drawn_x(), 5.0F, 1e-4);  // blending from where it was
  // The game sends it to the centre spot: drawn there at once.
  s.draw(0.0F, 0.0F);
  s.view.set(s.id, s.teleports, 1);
  blend.apply(s.view, frame_time(2));
  EXPECT_EQ(s.drawn_x(), 0.0F);
  EXPECT_FALSE(blend.blending(s.id));
}

TEST(TimelineBlend, ASwitchBackMidBlendStartsFromWhereItIsDrawn) {
  Scene s;
  const Duration time = Duration::millis(200);
  TimelineBlend blend(s.schema, s.motion, time);
  float last = 0.0F;
  float largest = 0.0F;
  for (int f = 0; f < 40; ++f) {
    const float interpolated = kSpeed * static_cast<float>(f * kFrame);
    const bool predicted = f >= 10 && f < 15;  // in, and out again 5 frames later
    if (f == 10 || f == 15) blend.switched(s.id, s.view);
    s.draw(predicted ? interpolated + kGap : interpolated, kSpeed);
    blend.apply(s.view, frame_time(f));
    if (f > 0) largest = std::max(largest, std::fabs(s.drawn_x() - last));
    last = s.drawn_x();
  }
  EXPECT_LE(largest, bound(time));
}

TEST(TimelineBlend, AnEntityGoneEndsItsBlend) {
  Scene s;
  TimelineBlend blend(s.schema, s.motion, Duration::millis(200));
  s.draw(1.0F, 0.0F);
  blend.switched(s.id, s.view);
  s.view.despawn(s.id);
  blend.apply(s.view, frame_time(0));
  EXPECT_EQ(blend.active(), 0U);
  // Not drawn last frame: nothing to blend from.
  blend.switched(EntityId{9}, s.view);
  EXPECT_EQ(blend.active(), 0U);
}

}  // namespace
}  // namespace tickwire::client
