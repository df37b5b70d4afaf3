// Round trips of every field kind at its range edges: what a game writes,
// what the world snaps it to, and what a client reads back must agree.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "snapshot_fixture.h"
#include "tickwire/core/quantize.h"
#include "tickwire/snapshot/field_codec.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;

// What a client would read after the server sends `world`'s entity.
World through_codes(const KitchenSink& k, const World& world) {
  WorldState state;
  capture(world, Tick(1), state);
  World client(k.schema);
  restore(state, client);
  return client;
}

TEST(Quantization, FloatsAtTheirEdges) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId id = w.spawn(k.thing);
  const float cases[][2] = {{0.0F, 0.0F},     {50.0F, 50.0F}, {-1.0F, 0.0F},   {1e9F, 50.0F}, {0.01F, 0.01F},
                            {49.99F, 49.99F}, {0.004F, 0.0F}, {0.006F, 0.01F}, {25.0F, 25.0F}};
  for (const auto& c : cases) {
    w.set(id, k.speed, c[0]);
    const World client = through_codes(k, w);
    EXPECT_NEAR(client.get(id, k.speed), c[1], 1e-5) << "written " << c[0];
  }
  w.set(id, k.speed, std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(through_codes(k, w).get(id, k.speed), 0.0F);
  w.set(id, k.speed, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(through_codes(k, w).get(id, k.speed), 0.0F);
}

TEST(Quantization, IntegersBoolsAndEnumsAtTheirEdges) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId id = w.spawn(k.thing);
  for (std::int32_t v :
       {-100, 100, 0, -101, 101, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()}) {
    w.set(id, k.health, v);
    EXPECT_EQ(through_codes(k, w).get(id, k.health), std::clamp(v, -100, 100));
  }
  for (bool v : {false, true}) {
    w.set(id, k.alive, v);
    EXPECT_EQ(through_codes(k, w).get(id, k.alive), v);
  }
  for (auto m : {testing::Mood::kCalm, testing::Mood::kAsleep}) {
    w.set(id, k.mood, m);
    EXPECT_EQ(through_codes(k, w).get(id, k.mood), m);
  }
  w.set(id, k.mood, static_cast<testing::Mood>(7));  // beyond the enum: clamps to its last value
  EXPECT_EQ(through_codes(k, w).get(id, k.mood), testing::Mood::kAsleep);
  w.set(id, k.ammo, std::array<std::int32_t, 2>{0, 999});
  EXPECT_EQ(through_codes(k, w).get(id, k.ammo), (std::array<std::int32_t, 2>{0, 999}));
  w.set(id, k.ammo, std::array<std::int32_t, 2>{-5, 5000});
  EXPECT_EQ(through_codes(k, w).get(id, k.ammo), (std::array<std::int32_t, 2>{0, 999}));
}

TEST(Quantization, AnglesWrapIntoHalfOpenCircle) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId id = w.spawn(k.thing);
  const float pi = std::numbers::pi_v<float>;
  const float step = 2.0F * pi / 4096.0F;
  const float cases[][2] = {{0.0F, 0.0F},
                            {pi, -pi},
                            {-pi, -pi},
                            {3.0F * pi, -pi},
                            {2.0F * pi, 0.0F},
                            {-step, -step},
                            {pi - step, pi - step},
                            {100.0F, std::remainder(100.0F, 2.0F * pi)}};
  for (const auto& c : cases) {
    w.set(id, k.yaw, c[0]);
    EXPECT_NEAR(through_codes(k, w).get(id, k.yaw), c[1], step / 2 + 1e-5) << "written " << c[0];
  }
  w.set(id, k.yaw, std::numeric_limits<float>::infinity());
  EXPECT_EQ(through_codes(k, w).get(id, k.yaw), 0.0F);
}

TEST(Quantization, VectorsAndArraysAtTheirCorners) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId id = w.spawn(k.thing);
  for (Vec3 v : {Vec3{-500, -500, -500}, Vec3{500, 500, 500}, Vec3{-600, 0.004F, 700}}) {
    w.set(id, k.position, v);
    const Vec3 got = through_codes(k, w).get(id, k.position);
    EXPECT_NEAR(got.x, std::clamp(v.x, -500.0F, 500.0F), 0.005F);
    EXPECT_NEAR(got.y, std::clamp(v.y, -500.0F, 500.0F), 0.005F);
    EXPECT_NEAR(got.z, std::clamp(v.z, -500.0F, 500.0F), 0.005F);
  }
  w.set(id, k.aim, Vec2{-1, 1});
  EXPECT_EQ(through_codes(k, w).get(id, k.aim), (Vec2{-1, 1}));
  w.set(id, k.weights, std::array<float, 3>{0.0F, 1.0F, 0.5F});
  EXPECT_EQ(through_codes(k, w).get(id, k.weights), (std::array<float, 3>{0.0F, 1.0F, 0.5F}));
}

TEST(Quantization, QuaternionSmallestThreeEdges) {
  const KitchenSink k;
  World w(k.schema);
  const EntityId id = w.spawn(k.thing);
  const float h = std::sqrt(0.5F);
  const Quat cases[] = {
      {0, 0, 0, 1},
      {0, 0, 0, -1},
      {1, 0, 0, 0},
      {0, -1, 0, 0},
      {h, 0, 0, h},  // 90 degrees: a two-way tie
      {0, h, -h, 0},
      {0.5F, 0.5F, 0.5F, 0.5F},
      {-0.5F, 0.5F, -0.5F, 0.5F},
      {0, 0, 0, 7},  // not normalized
  };
  for (const Quat& q : cases) {
    w.set(id, k.rotation, q);
    const Quat got = through_codes(k, w).get(id, k.rotation);
    const float n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    const float dot = std::fabs(got.x * q.x + got.y * q.y + got.z * q.z + got.w * q.w) / n;
    EXPECT_GT(dot, 0.99999F) << q.x << " " << q.y << " " << q.z << " " << q.w;
  }
  // Unusable rotations read back as (the nearest code to) the identity.
  for (const Quat& q : {Quat{0, 0, 0, 0}, Quat{std::nanf(""), 0, 0, 1}}) {
    w.set(id, k.rotation, q);
    EXPECT_GT(through_codes(k, w).get(id, k.rotation).w, 0.99999F);
  }
}

TEST(Quantization, SnappedValuesQuantizeToThemselves) {
  const KitchenSink k;
  const auto seed = testing::test_seed("SnappedValuesQuantizeToThemselves");
  std::mt19937_64 rng(seed);
  World w(k.schema);
  std::vector<EntityId> ids;
  for (int i = 0; i < 300; ++i) {
    ids.push_back(w.spawn(k.thing));
    testing::randomize_thing(k, w, ids.back(), rng);
  }
  // Near-ties between quaternion components are the hard case.
  const float h = std::sqrt(0.5F);
  w.set(ids[0], k.rotation, Quat{h + 1e-4F, h - 1e-4F, 0, 0});
  w.set(ids[1], k.rotation, Quat{0.5F + 2e-4F, 0.5F, 0.5F - 2e-4F, 0.5F});
  w.quantize();
  WorldState first;
  WorldState second;
  capture(w, Tick(1), first);
  const World copy = w;
  w.quantize();
  capture(w, Tick(1), second);
  EXPECT_TRUE(testing::same_entities(k.schema, first, second));
  for (EntityId id : ids) EXPECT_EQ(w.step_difference(copy, id), 0U);
}

TEST(Quantization, MatchesCoreFloatQuantizer) {
  const auto seed = testing::test_seed("MatchesCoreFloatQuantizer");
  std::mt19937_64 rng(seed);
  const float ranges[][3] = {{-100, 100, 0.01F}, {0, 1, 0.3F}, {-256, 256, 1.0F / 512}, {-0.7071F, 0.7071F, 0.001F}};
  for (const auto& r : ranges) {
    const FloatQuantizer q = make_quantizer(r[0], r[1], r[2]);
    for (int i = 0; i < 2000; ++i) {
      const float v = testing::uniform(rng, r[0] - 1, r[1] + 1);
      ASSERT_EQ(quantize_float(v, r[0], r[1], q.steps()), q.quantize(v));
      const std::uint32_t code = static_cast<std::uint32_t>(rng() % (q.steps() + 1));
      ASSERT_EQ(dequantize_float(code, r[0], r[1], q.steps()), q.dequantize(code));
      ASSERT_EQ(quantize_float(dequantize_float(code, r[0], r[1], q.steps()), r[0], r[1], q.steps()), code);
    }
  }
}

TEST(Quantization, RecordsRoundTripThroughTheirBits) {
  const KitchenSink k;
  Record r(k.schema, k.input);
  r.set(k.move, Vec2{0.5F, -1.0F});
  r.set(k.fire, true);
  BitWriter w(64);
  ASSERT_TRUE(serialize(w, r));
  EXPECT_EQ(w.bits_written(), 8U + 8U + 1U);  // 254 steps take 8 bits per axis
  BitReader reader(w.data());
  Record back(k.schema, k.input);
  ASSERT_TRUE(serialize(reader, back));
  r.quantize();
  EXPECT_EQ(back, r);
  EXPECT_THROW(r.set(k.speed, 1.0F), std::invalid_argument);
}

TEST(Quantization, RecordsRejectOutOfRangeCodes) {
  SchemaBuilder b;
  auto in = b.record_type("input");
  auto level = in.add_int("level", 0, 4);  // 3 bits, codes 5..7 invalid
  const Schema s = b.build();
  const std::uint8_t bytes[] = {0x07};
  BitReader reader(bytes);
  Record r(s, in.id());
  EXPECT_FALSE(serialize(reader, r));
  ASSERT_TRUE(reader.error().has_value());
  EXPECT_EQ(reader.error()->code, ErrorCode::kOutOfRange);
  (void)level;
}

}  // namespace
}  // namespace tickwire::snapshot
