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
  EXPECT_EQ(o.timeout_s, 5.0);
  EXPECT_EQ(o.handshake_timeout_s, 5.0);
}

TEST(Options, SchemaHashIsSetOnlyWhenGiven) {
  const auto parsed = parse({"--schema-hash", "1234", "--nearest", "16"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  EXPECT_EQ(std::get<Options>(parsed).schema_hash, 1234U);
  EXPECT_EQ(std::get<Options>(parsed).nearest, 16U);
}

TEST(Options, ModelsInFlightDefaultsToFourAndZeroMeansAll) {
  const auto none = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(none));
  EXPECT_EQ(std::get<Options>(none).models_in_flight, 4U);
  const auto all = parse({"--models-in-flight", "0"});
  ASSERT_TRUE(std::holds_alternative<Options>(all));
  EXPECT_EQ(std::get<Options>(all).models_in_flight, 0U);
}

TEST(Options, ViewsInFlightDefaultsToSixteenAndZeroMeansAll) {
  const auto none = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(none));
  EXPECT_EQ(std::get<Options>(none).views_in_flight, 16U);
  const auto all = parse({"--views-in-flight", "0"});
  ASSERT_TRUE(std::holds_alternative<Options>(all));
  EXPECT_EQ(std::get<Options>(all).views_in_flight, 0U);
}

TEST(Options, TimeoutIsSecondsFromOneToTenMinutes) {
  const auto parsed = parse({"--timeout", "8", "--handshake-timeout", "60"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  EXPECT_EQ(std::get<Options>(parsed).timeout_s, 8.0);
  EXPECT_EQ(std::get<Options>(parsed).handshake_timeout_s, 60.0);
}

TEST(Options, BadValuesExitTwoNamingTheFlag) {
  for (const auto& args : std::vector<std::vector<const char*>>{{"--nearest", "-1"},
                                                                {"--nearest", "lots"},
                                                                {"--snapshot-bytes", "10"},
                                                                {"--models-in-flight", "5000"},
                                                                {"--models-in-flight", "-1"},
                                                                {"--views-in-flight", "1"},
                                                                {"--views-in-flight", "4097"},
                                                                {"--max-catch-up-ticks", "0"},
                                                                {"--timeout", "0.5"},
                                                                {"--timeout", "601"},
                                                                {"--timeout", "soon"},
                                                                {"--handshake-timeout", "0"}}) {
    const auto parsed = parse(args);
    ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed)) << args[0];
    EXPECT_EQ(std::get<ParseExit>(parsed).code, 2);
    EXPECT_NE(std::get<ParseExit>(parsed).message.find(args[0]), std::string::npos)
        << std::get<ParseExit>(parsed).message;
  }
}

TEST(Options, ACodebookIsUsedOrTrainedNotBoth) {
  const auto use = parse({"--codebook", "arena.twcb"});
  ASSERT_TRUE(std::holds_alternative<Options>(use));
  EXPECT_EQ(std::get<Options>(use).codebook, "arena.twcb");
  const auto both = parse({"--codebook", "a.twcb", "--train-codebook", "b.twcb"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(both));
  EXPECT_EQ(std::get<ParseExit>(both).code, 2);
  EXPECT_NE(std::get<ParseExit>(both).message.find("--train-codebook"), std::string::npos)
      << std::get<ParseExit>(both).message;
}

TEST(Options, HelpExitsZero) {
  const auto parsed = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed));
  EXPECT_EQ(std::get<ParseExit>(parsed).code, 0);
  EXPECT_NE(std::get<ParseExit>(parsed).message.find("--max-catch-up-ticks"), std::string::npos);
}

TEST(Options, OperationsFlags) {
  const auto none = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(none));
  EXPECT_FALSE(std::get<Options>(none).metrics_port.has_value());
  EXPECT_EQ(std::get<Options>(none).metrics_bind, "0.0.0.0");
  EXPECT_FALSE(std::get<Options>(none).agones);

  const auto parsed = parse({"--metrics-port", "9100", "--metrics-bind", "127.0.0.1", "--agones",
                             "--agones-health-interval", "0.5", "--agones-allocate-on-join"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const auto& o = std::get<Options>(parsed);
  EXPECT_EQ(o.metrics_port, 9100);
  EXPECT_EQ(o.metrics_bind, "127.0.0.1");
  EXPECT_TRUE(o.agones);
  EXPECT_DOUBLE_EQ(o.agones_health_interval_s, 0.5);
  EXPECT_TRUE(o.agones_allocate_on_join);

  for (const auto& args : std::vector<std::vector<const char*>>{
           {"--metrics-port", "70000"}, {"--metrics-port", "x"}, {"--agones-health-interval", "0"}}) {
    const auto bad = parse(args);
    ASSERT_TRUE(std::holds_alternative<ParseExit>(bad)) << args[0];
    EXPECT_EQ(std::get<ParseExit>(bad).code, 2);
    EXPECT_NE(std::get<ParseExit>(bad).message.find(args[0]), std::string::npos) << std::get<ParseExit>(bad).message;
  }
}

}  // namespace
}  // namespace tickwire::server_app
