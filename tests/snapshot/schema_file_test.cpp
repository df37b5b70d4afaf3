// Schema files: every field kind, interpolation, prediction, role and
// priority written and read back into a schema with the same hash.

#include "tickwire/snapshot/schema_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace tickwire::snapshot {
namespace {

enum class Mood : std::uint8_t { kCalm, kAngry, kSleepy };

// One of each: every FieldKind, every Interpolation and Prediction, both
// roles, a non-default priority, quaternions by bits and by precision.
Schema every_kind() {
  SchemaBuilder b;
  TypeBuilder ship = b.entity_type("ship");
  ship.priority(2.5F);
  ship.add_float("fuel", 0.0F, 100.0F, 0.1F, Interpolation::kLinear, Prediction::kHold);
  ship.add_int("health", -5, 100, Interpolation::kStep, Prediction::kAuto);
  ship.add_int("lives", 0, 3, Interpolation::kTeleportCounter);
  ship.add_bool("boosting");
  ship.add_enum<Mood>("mood", 3);
  ship.add_angle("heading", 12, Interpolation::kAngular, Prediction::kMotion);
  ship.add_vec2("map", {-32.0F, -8.0F}, {32.0F, 8.0F}, 0.01F, Interpolation::kLinear, Prediction::kAcceleration);
  ship.add_vec3("position", {-500, -50, -500}, {500, 50, 500}, 0.01F);
  ship.add_quat("rotation", 0.001F);
  ship.add_quat_bits("turret", 10, Interpolation::kStep, Prediction::kHold);
  ship.add_float_array<4>("sensors", -1.0F, 1.0F, 1.0F / 255.0F);
  ship.add_int_array<3>("ammo", 0, 99, Interpolation::kLinear, Prediction::kMotion);
  TypeBuilder marker = b.entity_type("marker");
  marker.add_float("odd", 0.3F, 7.7F, 0.013F, Interpolation::kStep);
  TypeBuilder input = b.record_type("input");
  input.add_vec2("move", {-1.0F, -1.0F}, {1.0F, 1.0F}, 1.0F / 127.0F);
  input.add_angle("aim", 12);
  input.add_bool("fire");
  return b.build();
}

void expect_same(const Schema& a, const Schema& b) {
  ASSERT_EQ(a.hash(), b.hash());
  ASSERT_EQ(a.type_count(), b.type_count());
  for (std::size_t i = 0; i < a.type_count(); ++i) {
    const TypeSpec& x = a.types()[i];
    const TypeSpec& y = b.types()[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.role, y.role);
    EXPECT_EQ(x.priority, y.priority);
    ASSERT_EQ(x.components.size(), y.components.size());
    for (std::size_t c = 0; c < x.components.size(); ++c) {
      EXPECT_EQ(x.components[c].bits, y.components[c].bits) << x.name << " slot " << c;
      EXPECT_EQ(x.components[c].default_slot, y.components[c].default_slot) << x.name << " slot " << c;
    }
  }
}

TEST(SchemaFile, EveryKindRoundTripsWithTheSameHash) {
  const Schema schema = every_kind();
  const std::string text = describe_schema(schema);
  auto back = parse_schema(text);
  ASSERT_TRUE(back) << back.error().detail << "\n" << text;
  expect_same(schema, back.value());
  // Written again, the text is the same: the file is canonical.
  EXPECT_EQ(describe_schema(back.value()), text);
}

TEST(SchemaFile, PrecisionsAreWrittenShort) {
  const std::string text = describe_schema(every_kind());
  EXPECT_NE(text.find("field map vec2 min -32 -8 max 32 8 precision 0.01 interpolation linear prediction "
                      "acceleration"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("field turret quat bits 10 interpolation step prediction hold"), std::string::npos) << text;
  EXPECT_NE(text.find("type ship entity priority 2.5"), std::string::npos) << text;
}

TEST(SchemaFile, EmptySchemaRoundTrips) {
  auto back = parse_schema(describe_schema(Schema{}));
  ASSERT_TRUE(back) << back.error().detail;
  EXPECT_EQ(back.value().hash(), SchemaBuilder{}.build().hash());
}

TEST(SchemaFile, HandWrittenFileUsesTheBuildersDefaults) {
  auto parsed = parse_schema(
      "# a hand-written file\n"
      "tickwire-schema 1\n"
      "\n"
      "type input record\n"
      "  field move vec2 min -1 -1 max 1 1 precision 0.0078740157\n"
      "  field aim angle bits 12\n"
      "  field fire bool\n");
  ASSERT_TRUE(parsed) << parsed.error().detail;
  SchemaBuilder b;
  TypeBuilder input = b.record_type("input");
  input.add_vec2("move", {-1.0F, -1.0F}, {1.0F, 1.0F}, 1.0F / 127.0F);
  input.add_angle("aim", 12);
  input.add_bool("fire");
  EXPECT_EQ(parsed.value().hash(), b.build().hash());
}

TEST(SchemaFile, SavesAndLoads) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("schema_file_test_" + std::to_string(::getpid()) + ".twschema"))
          .string();
  const Schema schema = every_kind();
  ASSERT_TRUE(save_schema(path, schema).ok());
  auto back = load_schema(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(back) << back.error().detail;
  EXPECT_EQ(back.value().hash(), schema.hash());
}

TEST(SchemaFile, LoadNamesAMissingFile) {
  auto back = load_schema("/nonexistent/dir/schema.twschema");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().code, ErrorCode::kIo);
  EXPECT_NE(back.error().detail.find("/nonexistent/dir/schema.twschema"), std::string::npos);
}

TEST(SchemaFile, UnwritableNamesAreRefusedWhenDescribing) {
  SchemaBuilder b;
  b.entity_type("has space").add_bool("x");
  EXPECT_THROW((void)describe_schema(b.build()), std::invalid_argument);
  EXPECT_FALSE(save_schema("/tmp/never-written.twschema", b.build()).ok());
}

}  // namespace
}  // namespace tickwire::snapshot
