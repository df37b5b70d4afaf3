#include "tickwire/snapshot/schema.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "snapshot_fixture.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;

TEST(Schema, LaysOutEveryFieldKind) {
  const KitchenSink k;
  const TypeSpec& t = k.schema.type(k.thing);
  EXPECT_EQ(t.name, "thing");
  EXPECT_EQ(t.role, TypeRole::kEntity);
  // speed 1, health 1, alive 1, mood 1, yaw 1, aim 2, position 3, rotation 4, weights 3, ammo 2, heading 1
  EXPECT_EQ(t.stride(), 20);
  EXPECT_EQ(k.position.offset(), 7);
  EXPECT_EQ(k.rotation.offset(), 10);
  EXPECT_EQ(t.components[10].kind, CodeKind::kQuatIndex);
  EXPECT_EQ(t.components[11].kind, CodeKind::kQuatValue);
  EXPECT_EQ(t.components[0].max_code, 5000U);  // 50 / 0.01
  EXPECT_EQ(t.components[1].max_code, 200U);
  EXPECT_EQ(t.components[4].max_code, 4095U);  // 12-bit angle
  EXPECT_TRUE(t.components[4].wraps);
  EXPECT_TRUE(t.components[7].motion);   // a linear position predicts from motion
  EXPECT_FALSE(t.components[1].motion);  // a step integer holds
  EXPECT_EQ(k.schema.type(k.input).role, TypeRole::kRecord);
  EXPECT_EQ(k.schema.find_type("pebble"), k.pebble);
  EXPECT_FALSE(k.schema.find_type("nothing").has_value());
  EXPECT_TRUE(k.schema.type(k.pebble).components[3].second_order);
  EXPECT_THROW((void)k.schema.type(TypeId{99}), std::out_of_range);
}

TEST(Schema, RejectsBadDeclarations) {
  SchemaBuilder b;
  TypeBuilder t = b.entity_type("t");
  EXPECT_THROW(b.entity_type("t"), std::invalid_argument);
  EXPECT_THROW(b.entity_type(""), std::invalid_argument);
  EXPECT_THROW(t.add_float("", 0, 1, 0.1F), std::invalid_argument);
  t.add_float("a", 0, 1, 0.1F);
  EXPECT_THROW(t.add_float("a", 0, 1, 0.1F), std::invalid_argument);
  EXPECT_THROW(t.add_float("b", 1, 0, 0.1F), std::invalid_argument);
  EXPECT_THROW(t.add_float("c", 0, 1, 0.0F), std::invalid_argument);
  // 1e6 m at 1 mm is beyond what a float tells apart.
  EXPECT_THROW(t.add_float("d", -1e6F, 1e6F, 0.001F), std::invalid_argument);
  EXPECT_THROW(t.add_int("e", 5, 4), std::invalid_argument);
  EXPECT_THROW(t.add_int("f", 0, 1, Interpolation::kAngular), std::invalid_argument);
  EXPECT_THROW(t.add_angle("g", 1), std::invalid_argument);
  EXPECT_THROW(t.add_angle("h", 21), std::invalid_argument);
  EXPECT_THROW(t.add_enum<testing::Mood>("i", 0), std::invalid_argument);
  EXPECT_THROW(t.add_quat("j", 0.0F), std::invalid_argument);
  EXPECT_THROW(t.add_quat_bits("k", 1), std::invalid_argument);
  EXPECT_THROW(t.add_quat("l", 0.001F, Interpolation::kAngular, Prediction::kAcceleration), std::invalid_argument);
  EXPECT_THROW(t.add_vec3("m", {0, 0, 0}, {1, 1, 1}, 0.1F, Interpolation::kAngular), std::invalid_argument);
  EXPECT_THROW(t.priority(0.0F), std::invalid_argument);
  EXPECT_THROW((t.add_float_array<65>("n", 0, 1, 0.1F)), std::invalid_argument);
}

TEST(Schema, HashIsStableAndSeesEveryDetail) {
  const KitchenSink a;
  const KitchenSink b;
  EXPECT_EQ(a.schema.hash(), b.schema.hash());
  // Pinned: the hash goes into the handshake fingerprint, so it must not
  // change with the compiler, the platform or an innocent refactoring.
  EXPECT_EQ(a.schema.hash(), 0x3c8d83cbb1f3e812ULL) << std::hex << a.schema.hash();

  auto one = [](float precision, const char* name, Interpolation interp) {
    SchemaBuilder s;
    s.entity_type("t").add_float(name, 0.0F, 1.0F, precision, interp);
    return s.build().hash();
  };
  const auto base = one(0.01F, "x", Interpolation::kLinear);
  EXPECT_EQ(base, one(0.01F, "x", Interpolation::kLinear));
  EXPECT_NE(base, one(0.02F, "x", Interpolation::kLinear));
  EXPECT_NE(base, one(0.01F, "y", Interpolation::kLinear));
  EXPECT_NE(base, one(0.01F, "x", Interpolation::kStep));
  EXPECT_NE(Schema().hash(), base);
}

TEST(Schema, PriorityIsNotPartOfTheWireContract) {
  SchemaBuilder a;
  a.entity_type("t").priority(5.0F).add_bool("b");
  SchemaBuilder b;
  b.entity_type("t").add_bool("b");
  EXPECT_EQ(a.build().hash(), b.build().hash());
}

}  // namespace
}  // namespace tickwire::snapshot
