// The schema-driven scripts and thin bots from a schema file: inputs within
// every field's declared range, deterministic per seed, and the flags that
// pick the game refused with status 2 when they do not fit together.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "arena_setup.h"
#include "tickwire/bots/bots.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::bots {
namespace {

enum class Gear : std::uint8_t { kLow, kMid, kHigh };

// An input of every kind a record may hold.
snapshot::Schema every_kind_input() {
  snapshot::SchemaBuilder b;
  b.entity_type("ship").add_bool("alive");
  snapshot::TypeBuilder in = b.record_type("controls");
  in.add_float("throttle", 0.0F, 1.0F, 0.01F);
  in.add_int("weapon", -2, 5);
  in.add_bool("fire");
  in.add_enum<Gear>("gear", 3);
  in.add_angle("aim", 10);
  in.add_vec2("stick", {-1, -1}, {1, 1}, 1.0F / 127.0F);
  in.add_vec3("look", {-1, -1, -1}, {1, 1, 1}, 0.01F);
  in.add_quat_bits("turn", 9);
  in.add_float_array<3>("trims", -0.5F, 0.5F, 0.01F);
  in.add_int_array<2>("slots", 0, 9);
  return b.build();
}

// `tick_rate` as the view shows it (0: not yet known).
std::vector<std::vector<std::uint32_t>> play(const std::string& name, std::uint64_t seed, int ticks = 600,
                                             std::uint32_t tick_rate = 0) {
  const snapshot::Schema schema = every_kind_input();
  const snapshot::TypeId input = *schema.find_type("controls");
  const ScriptInfo* info = nullptr;
  for (const ScriptInfo& s : generic_scripts()) info = s.name == name ? &s : info;
  EXPECT_NE(info, nullptr) << name;
  auto script = info->make(seed);
  const snapshot::World world(schema);
  BotView view{world, std::nullopt, schema, input, std::nullopt};
  view.tick_rate = tick_rate;
  std::vector<std::vector<std::uint32_t>> codes;
  snapshot::Record record(schema, input);
  for (int t = 0; t < ticks; ++t) {
    record = snapshot::Record(schema, input);
    script->input(view, Tick(static_cast<Tick::Rep>(t)), record);
    std::vector<std::uint32_t> c(record.spec().stride());
    record.to_codes(c);
    for (std::size_t i = 0; i < c.size(); ++i) EXPECT_LE(c[i], record.spec().components[i].max_code) << name;
    // What was set reads back from its codes: a value the wire carries.
    snapshot::Record back(schema, input);
    EXPECT_TRUE(back.from_codes(c));
    codes.push_back(std::move(c));
  }
  return codes;
}

std::size_t changes(const std::vector<std::vector<std::uint32_t>>& codes) {
  std::size_t n = 0;
  for (std::size_t t = 1; t < codes.size(); ++t) n += codes[t] != codes[t - 1] ? 1U : 0U;
  return n;
}

TEST(GenericScripts, DeterministicPerSeedAndWithinEveryRange) {
  for (const ScriptInfo& info : generic_scripts()) {
    EXPECT_EQ(play(info.name, 11), play(info.name, 11)) << info.name;
    if (info.name != "generic-idle") {
      EXPECT_NE(play(info.name, 11), play(info.name, 12)) << info.name;
    }
  }
}

TEST(GenericScripts, EachPlaysItsStyle) {
  const snapshot::Schema schema = every_kind_input();
  snapshot::Record neutral(schema, *schema.find_type("controls"));
  std::vector<std::uint32_t> defaults(neutral.spec().stride());
  neutral.to_codes(defaults);
  for (const auto& c : play("generic-idle", 1)) EXPECT_EQ(c, defaults);
  EXPECT_EQ(changes(play("generic-held", 1)), 0U);
  EXPECT_GT(changes(play("generic-walk", 1)), 400U);  // drifts nearly every tick
  const std::size_t bursts = changes(play("generic-bursts", 1));
  EXPECT_GT(bursts, 10U);   // a burst or more in 10 s
  EXPECT_LT(bursts, 300U);  // quiet most of the time
}

// The tick of the first input that differs from the one before it.
std::size_t first_change(const std::vector<std::vector<std::uint32_t>>& codes) {
  for (std::size_t t = 1; t < codes.size(); ++t) {
    if (codes[t] != codes[t - 1]) return t;
  }
  return codes.size();
}

TEST(GenericScripts, BurstsHoldFirstForOneToThreeSecondsAtTheShownRate) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    // Before the server's rate is known: 60 ticks a second.
    const std::size_t unknown = first_change(play("generic-bursts", seed, 300));
    EXPECT_GE(unknown, 60U) << "seed " << seed;
    EXPECT_LT(unknown, 180U) << "seed " << seed;
    const std::size_t at_10 = first_change(play("generic-bursts", seed, 300, 10));
    EXPECT_GE(at_10, 10U) << "seed " << seed;
    EXPECT_LT(at_10, 30U) << "seed " << seed;
  }
}

TEST(GenericScripts, TheSchemaGameNeedsARecordType) {
  const snapshot::Schema schema = every_kind_input();
  EXPECT_THROW((void)make_schema_game(schema, *schema.find_type("ship")), std::invalid_argument);
  auto game = make_schema_game(schema, *schema.find_type("controls"));
  EXPECT_EQ(game->schema().hash(), schema.hash());
  EXPECT_EQ(game->input_type(), *schema.find_type("controls"));
}

class SchemaFlags : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto dir = std::filesystem::temp_directory_path();
    single_ = (dir / ("generic_single_" + std::to_string(::getpid()) + ".twschema")).string();
    twice_ = (dir / ("generic_twice_" + std::to_string(::getpid()) + ".twschema")).string();
    ASSERT_TRUE(snapshot::save_schema(single_, every_kind_input()).ok());
    snapshot::SchemaBuilder b;
    b.record_type("a").add_bool("x");
    b.record_type("b").add_bool("y");
    ASSERT_TRUE(snapshot::save_schema(twice_, b.build()).ok());
  }
  void TearDown() override {
    std::filesystem::remove(single_);
    std::filesystem::remove(twice_);
  }
  std::string single_;
  std::string twice_;
};

TEST_F(SchemaFlags, ThinBotsPlayFromAFileWithTheGenericScripts) {
  auto parsed = testing::parse_arena({"--thin", "--schema", single_.c_str()});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  Options o = std::get<Options>(parsed);
  auto setup = make_game_setup(o, arena_bots::spec());
  ASSERT_TRUE(setup) << setup.error().detail;
  EXPECT_EQ(o.script, "generic-walk");
  EXPECT_EQ(setup.value()->schema.hash(), every_kind_input().hash());
  EXPECT_EQ(setup.value()->find("wander"), nullptr) << "no game code: no game scripts";
  EXPECT_NE(setup.value()->find("generic-bursts"), nullptr);
  auto picked = testing::parse_arena({"--thin", "--schema", twice_.c_str(), "--input-type", "b"});
  EXPECT_TRUE(std::holds_alternative<Options>(picked));
}

TEST_F(SchemaFlags, FlagsThatDoNotFitAreRefused) {
  const std::vector<std::vector<const char*>> bad = {
      {"--schema", single_.c_str()},  // not thin
      {"--thin", "--schema", "/nonexistent.twschema"},
      {"--thin", "--schema", twice_.c_str()},  // which record is the input?
      {"--thin", "--schema", twice_.c_str(), "--input-type", "c"},
      {"--thin", "--schema", single_.c_str(), "--input-type", "ship"},  // not a record
      {"--input-type", "a"},                                            // without --schema
      {"--thin", "--schema", single_.c_str(), "--script", "wander"},    // a game script without the game
  };
  for (const auto& args : bad) {
    auto parsed = testing::parse_arena(args);
    ASSERT_TRUE(std::holds_alternative<int>(parsed)) << args.back();
    EXPECT_EQ(std::get<int>(parsed), 2) << args.back();
  }
}

}  // namespace
}  // namespace tickwire::bots
