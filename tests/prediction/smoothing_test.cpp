#include <gtest/gtest.h>

#include <cmath>

#include "lockstep.h"
#include "tickwire/prediction/field_blend.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::Lockstep;

constexpr int kFramesPerTick = 4;  // 240 Hz drawing over a 60 Hz simulation

struct Drawn {
  float largest_step = 0.0F;  // largest move of the drawn avatar between two frames
  Vec2 last;
};

// Runs `ticks` ticks, drawing kFramesPerTick frames per tick, and records
// how far the drawn avatar moves between consecutive frames.
Drawn run_and_draw(Lockstep& l, int ticks, snapshot::World& out) {
  Drawn d;
  bool first = true;
  for (int i = 0; i < ticks; ++i) {
    l.step();
    for (int f = 0; f < kFramesPerTick; ++f) {
      const auto units = NetworkTime::kUnitsPerTick * f / kFramesPerTick;
      l.client->render(NetworkTime::from_tick(60, l.client_tick, units), out);
      const Vec2 p = out.get(l.avatar, l.s.position);
      if (!first) d.largest_step = std::max(d.largest_step, std::hypot(p.x - d.last.x, p.y - d.last.y));
      d.last = p;
      first = false;
    }
  }
  return d;
}

void push_at_50(Lockstep& l) {
  l.server_hook = [&l](Tick t, snapshot::World& w) {
    if (t != Tick(50)) return;
    Vec2 p = w.get(l.avatar, l.s.position);
    p.x += 3.0F;
    w.set(l.avatar, l.s.position, p);
  };
}

TEST(Smoothing, ACorrectionNeverPops) {
  PredictionConfig c;
  c.smoothing.duration = Duration::millis(100);
  Lockstep l(c);
  push_at_50(l);
  l.start();
  snapshot::World out(l.s.schema, l.client->world_config());
  const Drawn d = run_and_draw(l, 120, out);
  ASSERT_EQ(l.client->stats().mispredictions, 1U);
  // Per frame: the avatar's own motion plus the error's share of the frame.
  const float frame_s = 1.0F / (60.0F * kFramesPerTick);
  const float own = testing::TestGame::kSpeed * std::sqrt(2.0F) * frame_s;
  const float error_share = 3.0F * frame_s / 0.1F;
  EXPECT_LE(d.largest_step, own + error_share + 0.02F);
  // Long after the correction the drawing is the simulation again.
  EXPECT_EQ(l.client->smoother().smoothing(), 0U);
}

TEST(Smoothing, WithoutSmoothingTheSameCorrectionPops) {
  PredictionConfig c;
  c.smoothing.duration = Duration::zero();
  Lockstep l(c);
  push_at_50(l);
  l.start();
  snapshot::World out(l.s.schema, l.client->world_config());
  EXPECT_GT(run_and_draw(l, 120, out).largest_step, 2.5F);
}

TEST(Smoothing, TurnedOffTheSameCorrectionPopsAndBackOnItSlides) {
  PredictionConfig c;
  c.smoothing.duration = Duration::millis(100);
  Lockstep l(c);
  push_at_50(l);
  l.start();
  l.client->set_smoothing(false);
  EXPECT_FALSE(l.client->smoothing());
  snapshot::World out(l.s.schema, l.client->world_config());
  EXPECT_GT(run_and_draw(l, 120, out).largest_step, 2.5F);

  Lockstep on(c);
  push_at_50(on);
  on.start();
  on.client->set_smoothing(false);
  on.client->set_smoothing(true);
  snapshot::World out_on(on.s.schema, on.client->world_config());
  EXPECT_LT(run_and_draw(on, 120, out_on).largest_step, 1.0F);
}

TEST(Smoothing, ErrorIsGoneAfterTheDuration) {
  PredictionConfig c;
  c.smoothing.duration = Duration::millis(100);
  Lockstep l(c);
  push_at_50(l);
  l.start();
  snapshot::World out(l.s.schema, l.client->world_config());
  run_and_draw(l, 50 + static_cast<int>(l.lead + l.delay) + 1, out);  // the correction just arrived
  EXPECT_EQ(l.client->stats().replays, 1U);
  run_and_draw(l, 8, out);  // 133 ms: more than the duration
  EXPECT_EQ(l.client->smoother().smoothing(), 0U);
  // Drawn state is the predicted state one tick back, blended: at a tick
  // boundary exactly the previous tick's state.
  l.client->render(NetworkTime::from_tick(60, l.client_tick), out);
  const StateBlock* prev = l.client->history().find(l.client_tick - 1);
  ASSERT_NE(prev, nullptr);
  const auto row = prev->find(l.avatar);
  ASSERT_NE(row, nullptr);
  const auto slots = prev->slots(*row);
  EXPECT_TRUE(std::equal(slots.begin(), slots.end(), out.slots(l.avatar).begin()));
}

TEST(Smoothing, ATeleportSnapsPastTheSnapDistance) {
  PredictionConfig c;
  c.smoothing.duration = Duration::millis(100);
  c.smoothing.snap_distance = 2.0F;
  const testing::TestSchema s;
  c.motion = {MotionFields::of(s.position, s.velocity)};
  Lockstep l(c);
  push_at_50(l);  // 3 units: more than the snap distance
  l.start();
  snapshot::World out(l.s.schema, l.client->world_config());
  EXPECT_GT(run_and_draw(l, 120, out).largest_step, 2.5F);
}

TEST(FieldBlend, FollowsEachFieldsRule) {
  testing::TestSchema s;
  const snapshot::TypeSpec& player = s.schema.type(s.player);
  snapshot::World w(s.schema);
  const EntityId a = w.spawn(s.player);
  const EntityId b = w.spawn(s.player);
  w.set(a, s.position, Vec2{0, 10});
  w.set(b, s.position, Vec2{4, 20});
  w.set(a, s.heading, 3.0F);
  w.set(b, s.heading, -3.0F);  // the short way round passes pi
  w.set(a, s.cooldown, 5);
  w.set(b, s.cooldown, 9);
  snapshot::World out(s.schema);
  const EntityId o = out.spawn(s.player);
  blend(player, w.slots(a), w.slots(b), 0.25, out.slots(o));
  EXPECT_FLOAT_EQ(out.get(o, s.position).x, 1.0F);
  EXPECT_FLOAT_EQ(out.get(o, s.position).y, 12.5F);
  EXPECT_GT(std::fabs(out.get(o, s.heading)), 3.0F);
  EXPECT_EQ(out.get(o, s.cooldown), 5);  // a step field holds until the next tick
  blend(player, w.slots(a), w.slots(b), 1.0, out.slots(o));
  EXPECT_EQ(out.get(o, s.cooldown), 9);

  std::vector<float> error(player.stride());
  visual_error(player, w.slots(b), w.slots(a), error);
  EXPECT_EQ(error[player.fields[2].offset], 0.0F);  // no error in a step field
  apply_error(player, w.slots(a), error, 1.0, out.slots(o));
  EXPECT_NEAR(out.get(o, s.position).x, 4.0F, 1e-5F);
  EXPECT_NEAR(out.get(o, s.heading), -3.0F, 1e-5F);
  EXPECT_FLOAT_EQ(largest_linear_error(player, error), 10.0F);
}

TEST(FieldBlend, RotationsTakeTheShorterArc) {
  snapshot::SchemaBuilder builder;
  auto t = builder.entity_type("body");
  const auto rot = t.add_quat("rotation", 0.001F);
  const snapshot::Schema schema = builder.build();
  snapshot::World w(schema);
  const EntityId a = w.spawn(t.id());
  const EntityId b = w.spawn(t.id());
  const EntityId o = w.spawn(t.id());
  const float h = std::sqrt(0.5F);
  w.set(a, rot, snapshot::Quat{0, 0, 0, 1});
  w.set(b, rot, snapshot::Quat{0, 0, -h, -h});  // 90 degrees about z, stored negated
  blend(schema.type(t.id()), w.slots(a), w.slots(b), 0.5, w.slots(o));
  const snapshot::Quat q = w.get(o, rot);
  EXPECT_NEAR(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0F, 1e-5F);
  EXPECT_NEAR(q.z, std::sin(0.3927F), 1e-3F);  // 45 degrees, not 135
  EXPECT_GT(q.w, 0.9F);
}

}  // namespace
}  // namespace tickwire::prediction
