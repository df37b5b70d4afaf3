#include "options.h"

#include <gtest/gtest.h>

#include <vector>

namespace tickwire::server_app {
namespace {

std::variant<Options, ParseExit> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tickwire-server");
  return parse_options(static_cast<int>(args.size()), args.data());
}

TEST(Options, Defaults) {
  const auto parsed = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const auto& o = std::get<Options>(parsed);
  EXPECT_EQ(o.tick_rate, 60U);
  EXPECT_EQ(o.nearest, 0U);
  EXPECT_EQ(o.snapshot_bytes, 1100U);
  EXPECT_EQ(o.max_catch_up_ticks, 8);
  EXPECT_FALSE(o.schema_hash.has_value());
}

TEST(Options, SchemaHashIsSetOnlyWhenGiven) {
  const auto parsed = parse({"--schema-hash", "1234", "--nearest", "16"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  EXPECT_EQ(std::get<Options>(parsed).schema_hash, 1234U);
  EXPECT_EQ(std::get<Options>(parsed).nearest, 16U);
}

TEST(Options, BadValuesExitTwoNamingTheFlag) {
  for (const auto& args : std::vector<std::vector<const char*>>{
           {"--nearest", "-1"}, {"--nearest", "lots"}, {"--snapshot-bytes", "10"}, {"--max-catch-up-ticks", "0"}}) {
    const auto parsed = parse(args);
    ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed)) << args[0];
    EXPECT_EQ(std::get<ParseExit>(parsed).code, 2);
    EXPECT_NE(std::get<ParseExit>(parsed).message.find(args[0]), std::string::npos)
        << std::get<ParseExit>(parsed).message;
  }
}

TEST(Options, HelpExitsZero) {
  const auto parsed = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed));
  EXPECT_EQ(std::get<ParseExit>(parsed).code, 0);
  EXPECT_NE(std::get<ParseExit>(parsed).message.find("--max-catch-up-ticks"), std::string::npos);
}

}  // namespace
}  // namespace tickwire::server_app
