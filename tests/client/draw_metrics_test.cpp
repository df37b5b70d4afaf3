// Visual pops, frame by frame, on a drawn world written by hand: a body
// with a velocity field and a marker without one, drawn at 240 Hz.
#include "tickwire/client/draw_metrics.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

namespace tickwire::client {
namespace {

using snapshot::EntityId;
using snapshot::TypeId;
using snapshot::Vec2;

constexpr double kFrame = 1.0 / 240.0;

struct Drawing {
  snapshot::Schema schema;
  TypeId body;
  TypeId marker;
  snapshot::Field<Vec2> position;
  snapshot::Field<Vec2> velocity;
  snapshot::Field<std::int32_t> teleports;
  snapshot::Field<Vec2> marker_position;
  std::vector<prediction::MotionFields> motion;

  Drawing() {
    snapshot::SchemaBuilder b;
    auto t = b.entity_type("body");
    position = t.add_vec2("position", {-1000, -1000}, {1000, 1000}, 0.001F);
    velocity = t.add_vec2("velocity", {-50, -50}, {50, 50}, 0.001F);
    teleports = t.add_int("teleports", 0, 3, snapshot::Interpolation::kTeleportCounter);
    body = t.id();
    auto m = b.entity_type("marker");
    marker_position = m.add_vec2("position", {-1000, -1000}, {1000, 1000}, 0.001F);
    marker = m.id();
    schema = b.build();
    motion = {prediction::MotionFields::of(position, velocity, 0.5F), prediction::MotionFields::of(marker_position)};
  }
};

struct Frames {
  Drawing d;
  snapshot::World view{d.schema};
  EntityId body = view.spawn(d.body);
  EntityId marker = view.spawn(d.marker);
  DrawMetrics metrics{d.schema, d.motion, 0.25F};
  int frame = 0;

  // Both move at 6 units a second along x; `jump` is added to the body.
  void draw(float body_jump = 0.0F, float marker_jump = 0.0F) {
    const auto x = static_cast<float>(6.0 * kFrame * frame);
    if (view.contains(body)) {
      view.set(body, d.velocity, Vec2{6, 0});
      view.set(body, d.position, Vec2{view.get(body, d.position).x + (frame == 0 ? x : 0.025F) + body_jump, 0});
    }
    view.set(marker, d.marker_position,
             Vec2{view.get(marker, d.marker_position).x + (frame == 0 ? x : 0.025F) + marker_jump, 1});
    metrics.frame(view, Time::from_micros(static_cast<std::int64_t>(kFrame * 1e6 * frame)));
    ++frame;
  }
};

TEST(VisualPops, SteadyMotionNeverPops) {
  Frames r;
  for (int i = 0; i < 240; ++i) r.draw();
  EXPECT_EQ(r.metrics.frames(), 240U);
  EXPECT_EQ(r.metrics.pops(), 0U);
  EXPECT_LT(r.metrics.worst_unexplained(), 0.01F);
}

TEST(VisualPops, AJumpPops) {
  Frames r;
  for (int i = 0; i < 10; ++i) r.draw();
  r.draw(0.5F);  // the body half a unit beyond its velocity
  EXPECT_EQ(r.metrics.pops(), 1U);
  r.draw(0.0F, 0.5F);  // the marker: judged by its last move's speed
  EXPECT_EQ(r.metrics.pops(), 2U);
  for (int i = 0; i < 10; ++i) r.draw();
  EXPECT_EQ(r.metrics.pops(), 2U);
}

TEST(VisualPops, AMoveBelowTheDistanceIsNoPop) {
  Frames r;
  for (int i = 0; i < 10; ++i) r.draw();
  r.draw(0.2F);
  EXPECT_EQ(r.metrics.pops(), 0U);
}

TEST(VisualPops, ATeleportIsNoPop) {
  Frames r;
  for (int i = 0; i < 10; ++i) r.draw();
  r.view.set(r.body, r.d.teleports, 1);
  r.draw(50.0F);
  EXPECT_EQ(r.metrics.pops(), 0U);
  for (int i = 0; i < 10; ++i) r.draw();
  EXPECT_EQ(r.metrics.pops(), 0U);
}

TEST(VisualPops, AnEntityDrawnAgainAfterAGapIsNoPop) {
  Frames r;
  for (int i = 0; i < 10; ++i) r.draw();
  r.view.despawn(r.body);
  r.draw();
  ASSERT_TRUE(r.view.spawn_at(r.body, r.d.body));
  r.view.set(r.body, r.d.position, Vec2{30, 0});
  r.draw();
  EXPECT_EQ(r.metrics.pops(), 0U);
}

TEST(VisualPops, BadSettingsAreRejected) {
  const Drawing d;
  EXPECT_THROW(DrawMetrics(d.schema, d.motion, 0.0F), std::invalid_argument);
  EXPECT_THROW(DrawMetrics(d.schema, d.motion, std::numeric_limits<float>::quiet_NaN()), std::invalid_argument);
  auto bad = d.motion;
  bad[0].position_offset = 100;
  EXPECT_THROW(DrawMetrics(d.schema, bad, 0.25F), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::client
