// The command line: good values parsed, bad ones refused with status 2.

#include "options.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

#include "arena_setup.h"

namespace tickwire::bots {
namespace {

std::variant<Options, int> parse(std::initializer_list<const char*> args) {
  return testing::parse_arena(std::vector<const char*>(args));
}

TEST(BotOptions, ValuesAreParsed) {
  auto parsed = parse({"--connect",
                       "127.0.0.1:9000",
                       "--bots",
                       "32",
                       "--duration",
                       "30",
                       "--script",
                       "chase",
                       "--seed",
                       "9",
                       "--max-rtt-p99-ms",
                       "150",
                       "--schema-hash",
                       "1234",
                       "--max-late-burst-seconds",
                       "3",
                       "--min-input-margin-p99-ms",
                       "-1.5",
                       "--input-interval",
                       "2"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  EXPECT_EQ(o.server.port, 9000);
  EXPECT_EQ(o.bots, 32);
  EXPECT_EQ(o.script, "chase");
  EXPECT_EQ(o.seed, 9U);
  EXPECT_EQ(o.thresholds.max_rtt_p99_ms, 150.0);
  EXPECT_EQ(o.thresholds.max_late_input_fraction, 0.01);
  EXPECT_EQ(o.schema_hash, 1234U);
  EXPECT_EQ(o.thresholds.max_late_burst_seconds, 3U);
  EXPECT_EQ(o.thresholds.min_input_margin_p99_ms, -1.5);
  EXPECT_EQ(o.input_interval, 2);
  EXPECT_FALSE(o.link.has_value()) << "no network flag: no conditioning";
}

TEST(BotOptions, LinkFlagsTakePercentagesOverAProfile) {
  auto parsed = parse({"--profile", "broadband", "--loss", "5", "--up-dup", "10", "--latency", "30"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  ASSERT_TRUE(o.link.has_value());
  EXPECT_DOUBLE_EQ(o.link->up.loss, 0.05);
  EXPECT_DOUBLE_EQ(o.link->down.loss, 0.05);
  EXPECT_DOUBLE_EQ(o.link->up.duplicate, 0.10);
  EXPECT_EQ(o.link->down.latency, Duration::millis(30));
  EXPECT_NE(o.link->description.find("broadband"), std::string::npos);
}

TEST(BotOptions, DelaysThatChangeWithTimeComeFromAProfileOrFlags) {
  auto rising = parse({"--profile", "rising"});
  ASSERT_TRUE(std::holds_alternative<Options>(rising));
  ASSERT_TRUE(std::get<Options>(rising).link.has_value());
  EXPECT_GT(std::get<Options>(rising).link->up.rise_delay, Duration::zero());
  auto flags = parse({"--flap", "40", "--flap-period", "2.5", "--down-rise", "80", "--down-rise-period", "10"});
  ASSERT_TRUE(std::holds_alternative<Options>(flags));
  const Options& o = std::get<Options>(flags);
  ASSERT_TRUE(o.link.has_value());
  EXPECT_EQ(o.link->up.flap_delay, Duration::millis(40));
  EXPECT_EQ(o.link->down.flap_period, Duration::millis(2500));
  EXPECT_EQ(o.link->down.rise_delay, Duration::millis(80));
  EXPECT_EQ(o.link->up.rise_delay, Duration::zero());
  EXPECT_EQ(o.link->down.rise_period, Duration::seconds(10));
}

TEST(BotOptions, BadValuesExitWithTwo) {
  for (auto args : {std::vector<const char*>{"--bots", "0"},
                    {"--script", "dance"},
                    {"--profile", "moon"},
                    {"--loss", "120"},
                    {"--flap", "40"},  // without --flap-period
                    {"--rise-period", "-3"},
                    {"--connect", "nowhere"},
                    {"--max-late-inputs", "2"},
                    {"--max-late-burst-seconds", "-1"},
                    {"--max-late-burst-seconds", "many"},
                    {"--min-input-margin-p99-ms", "x"},
                    {"--frame-rate", "x"},
                    {"--input-interval", "0"},
                    {"--input-interval", "9"},
                    {"--codebook", "/nonexistent/arena.twcb"},
                    {"--codebook", "/dev/null"},  // empty: not a codebook
                    {"--no-such-flag"}}) {
    auto parsed = testing::parse_arena(args);
    ASSERT_TRUE(std::holds_alternative<int>(parsed)) << args[0];
    EXPECT_EQ(std::get<int>(parsed), 2) << args[0];
  }
}

TEST(BotOptions, HelpExitsWithZero) {
  auto parsed = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<int>(parsed));
  EXPECT_EQ(std::get<int>(parsed), 0);
}

}  // namespace
}  // namespace tickwire::bots
