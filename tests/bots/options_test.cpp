// The command line: good values parsed, bad ones refused with status 2.

#include "options.h"

#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <string>
#include <vector>

#include "arena_setup.h"
#include "bot_socket.h"
#include "tickwire/transport/server_identity.h"

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

TEST(BotOptions, TheTimeProviderIsChosenByName) {
  auto plain = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(plain));
  EXPECT_EQ(std::get<Options>(plain).time_provider, "adaptive");
  for (const char* name : {"adaptive", "n4e", "rfc", "rtt_half_slack"}) {
    auto parsed = parse({"--time-provider", name});
    ASSERT_TRUE(std::holds_alternative<Options>(parsed)) << name;
    EXPECT_EQ(std::get<Options>(parsed).time_provider, name);
  }
  for (const char* bad : {"ours", "oneshot", "rfc_2tick", ""}) {
    auto parsed = parse({"--time-provider", bad});
    ASSERT_TRUE(std::holds_alternative<int>(parsed)) << bad;
    EXPECT_EQ(std::get<int>(parsed), 2) << bad;
  }
}

TEST(BotOptions, SessionSecurityReachesEveryBotsTransport) {
  const transport::ServerPublicKey pinned = transport::ServerIdentity::generate().public_key();
  auto parsed = parse({"--server-key", pinned.to_hex().c_str(), "--plaintext"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  ASSERT_TRUE(o.security.server_key.has_value());
  EXPECT_EQ(*o.security.server_key, pinned);
  EXPECT_TRUE(o.security.plaintext);

  auto net = bot_socket_config(Duration::seconds(3), o.server, {7, std::nullopt}, o.security);
  ASSERT_TRUE(net.ok()) << net.error().detail;
  EXPECT_TRUE(net->plaintext);
  EXPECT_EQ(net->validation.server_key, o.security.server_key);
  EXPECT_TRUE(net->validation.connect_token.empty());
  EXPECT_FALSE(net->validation.token_session_key.has_value());

  auto plain = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(plain));
  EXPECT_FALSE(std::get<Options>(plain).security.server_key.has_value());
  EXPECT_FALSE(std::get<Options>(plain).security.plaintext) << "encrypted unless asked";
}

TEST(BotOptions, MintedTokensCarryTheSessionKeyTheBotUses) {
  const transport::TokenKey key = transport::TokenKey::generate();
  const transport::Address server{"127.0.0.1", 7777};
  auto a = bot_socket_config(Duration::seconds(3), server, {1, key}, {});
  auto b = bot_socket_config(Duration::seconds(3), server, {1, key}, {});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->validation.token_session_key.has_value());
  ASSERT_TRUE(b->validation.token_session_key.has_value());
  EXPECT_NE(a->validation.token_session_key->bytes, b->validation.token_session_key->bytes) << "fresh per join";

  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const transport::TokenCheck check = transport::check_connect_token(a->validation.connect_token, key, now, server);
  ASSERT_EQ(check.status, transport::TokenStatus::kOk);
  EXPECT_EQ(check.token.client_id, 1U);
  EXPECT_EQ(check.token.session_key.bytes, a->validation.token_session_key->bytes);
}

TEST(BotOptions, ABadServerKeyIsRefusedByName) {
  for (const char* bad : {"abc", "", "zz00000000000000000000000000000000000000000000000000000000000000"}) {
    ::testing::internal::CaptureStderr();
    auto parsed = parse({"--server-key", bad});
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(std::holds_alternative<int>(parsed)) << bad;
    EXPECT_EQ(std::get<int>(parsed), 2) << bad;
    EXPECT_NE(err.find("--server-key"), std::string::npos) << err;
    EXPECT_NE(err.find("64 hexadecimal digits"), std::string::npos) << err;
  }
}

TEST(BotOptions, HelpExitsWithZero) {
  auto parsed = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<int>(parsed));
  EXPECT_EQ(std::get<int>(parsed), 0);
}

}  // namespace
}  // namespace tickwire::bots
