// Teleports of predicted entities, and correction sizes as drawn, through
// ClientPrediction::render: a ball rolls at 6 units a second and a goal
// puts it 50 units further on. Between the two nothing may be drawn, in a
// correction or within the predicted trajectory, and never back again.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lockstep.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::Lockstep;

constexpr int kFramesPerTick = 4;

EntityId add_ball(Lockstep& l) {
  const EntityId ball = l.server.spawn(l.s.ball);
  l.server.set(ball, l.s.ball_velocity, Vec2{6, 0});
  l.client->predict(ball, PredictedRole::kUnowned);
  return ball;
}

// The ball's drawn x, every frame of `ticks` ticks.
std::vector<float> draw_ball(Lockstep& l, EntityId ball, int ticks) {
  snapshot::World out(l.s.schema, l.client->world_config());
  std::vector<float> xs;
  for (int i = 0; i < ticks; ++i) {
    l.step();
    for (int f = 0; f < kFramesPerTick; ++f) {
      const auto units = NetworkTime::kUnitsPerTick * f / kFramesPerTick;
      l.client->render(NetworkTime::from_tick(60, l.client_tick, units), out);
      if (out.contains(ball)) xs.push_back(out.get(ball, l.s.ball_position).x);
    }
  }
  return xs;
}

// Before the goal the ball is below `before`; after it, past `after`, and
// no frame lies between or goes back.
void expect_never_between(const std::vector<float>& xs, float before, float after) {
  bool scored = false;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (xs[i] >= after) scored = true;
    if (scored) {
      EXPECT_GE(xs[i], after) << "frame " << i << " drawn back before the goal";
    } else {
      EXPECT_LT(xs[i], before) << "frame " << i << " drawn between the two places";
    }
  }
  EXPECT_TRUE(scored);
}

TEST(PredictedTeleports, WithinThePredictedTrajectoryNothingIsDrawnBetween) {
  Lockstep l;
  l.client_game.teleport_at = Tick(40);  // both sides know the goal
  l.server_game.teleport_at = Tick(40);
  const EntityId ball = add_ball(l);
  l.start();
  const auto xs = draw_ball(l, ball, 80);
  EXPECT_EQ(l.client->stats().mispredictions, 0U);
  expect_never_between(xs, 4.2F, 53.9F);  // 0.1 a tick; the goal at tick 40 adds 50
}

TEST(PredictedTeleports, ACorrectionAcrossATeleportSnapsWithNoErrorLeft) {
  PredictionConfig c;
  c.smoothing.duration = Duration::millis(200);
  c.motion = {MotionFields::of(testing::TestSchema().ball_position, testing::TestSchema().ball_velocity)};
  Lockstep l(c);
  l.server_game.teleport_at = Tick(40);  // only the server knows
  const EntityId ball = add_ball(l);
  l.start();
  const auto xs = draw_ball(l, ball, 80);
  EXPECT_GE(l.client->stats().mispredictions, 1U);
  expect_never_between(xs, 5.2F, 53.9F);  // predicted up to 9 ticks past the goal
  EXPECT_EQ(l.client->smoother().smoothing(), 0U);
  EXPECT_GE(l.client->smoother().snaps(), 1U);
  EXPECT_EQ(l.client->smoother().correction_sizes().count(), 0U);  // a teleport is no correction size
}

// The avatar pushed 3 units by the server at tick 50 (smoothing_test.cpp).
double drawn_correction(bool smoothing, Duration duration) {
  PredictionConfig c;
  c.smoothing.duration = duration;
  const testing::TestSchema s;
  c.motion = {MotionFields::of(s.position, s.velocity)};
  Lockstep l(c);
  l.server_hook = [&l](Tick t, snapshot::World& w) {
    if (t != Tick(50)) return;
    Vec2 p = w.get(l.avatar, l.s.position);
    p.x += 3.0F;
    w.set(l.avatar, l.s.position, p);
  };
  l.start();
  l.client->set_smoothing(smoothing);
  snapshot::World out(l.s.schema, l.client->world_config());
  for (int i = 0; i < 100; ++i) {
    l.step();
    l.client->render(NetworkTime::from_tick(60, l.client_tick, NetworkTime::kUnitsPerTick / 2), out);
  }
  const CorrectionSizes& sizes = l.client->smoother().correction_sizes();
  EXPECT_EQ(sizes.count(), 1U);
  return sizes.quantile(0.5);
}

TEST(PredictedCorrections, SizeAsDrawnIsRecordedWithSmoothingOnAndOff) {
  const double on = drawn_correction(true, Duration::millis(100));
  const double off = drawn_correction(false, Duration::millis(100));
  const double none = drawn_correction(true, Duration::zero());
  EXPECT_NEAR(on, 3.0, 0.02);
  EXPECT_DOUBLE_EQ(on, off);
  EXPECT_DOUBLE_EQ(on, none);
}

}  // namespace
}  // namespace tickwire::prediction
