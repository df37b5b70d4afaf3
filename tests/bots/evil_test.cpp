// The evil bots' pure parts: the --evil mix, the packets they forge and
// how their ends are tallied and judged.
#include <gtest/gtest.h>

#include "arena_setup.h"
#include "evil_packets.h"
#include "evil_scripts.h"
#include "options.h"
#include "tickwire/arena/arena.h"
#include "tickwire/core/serialize.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::bots {
namespace {

TEST(EvilMix, ParsesNamesWithCounts) {
  using Mix = std::vector<std::pair<std::string, int>>;
  auto mix = parse_evil_mix("garbage:8,flood:2");
  ASSERT_TRUE(std::holds_alternative<Mix>(mix));
  const Mix& items = std::get<Mix>(mix);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0], (std::pair<std::string, int>{"garbage", 8}));
  EXPECT_EQ(items[1], (std::pair<std::string, int>{"flood", 2}));
}

TEST(EvilMix, RejectsUnknownNamesAndBadCounts) {
  for (const char* bad : {"", "garbage", "garbage:", "garbage:0", "garbage:x", "wander:2", "nan:2,", "mute:5000"}) {
    EXPECT_TRUE(std::holds_alternative<std::string>(parse_evil_mix(bad))) << bad;
  }
}

std::variant<Options, int> parse(std::vector<const char*> args) { return testing::parse_arena(std::move(args)); }

TEST(EvilMix, OptionsMixEvilBotsIntoAnHonestRun) {
  auto parsed = parse({"--bots", "32", "--script", "wander", "--evil", "garbage:8,flood:8"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  EXPECT_EQ(o.bots, 32);
  ASSERT_EQ(o.evil.size(), 2u);
  EXPECT_EQ(o.evil[1], (std::pair<std::string, int>{"flood", 8}));
  EXPECT_TRUE(o.evil_must_fail);
}

TEST(EvilMix, AnEvilScriptMakesEveryBotEvil) {
  auto parsed = parse({"--bots", "4", "--script", "stall", "--no-evil-must-fail"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  EXPECT_EQ(o.bots, 0);
  ASSERT_EQ(o.evil.size(), 1u);
  EXPECT_EQ(o.evil[0], (std::pair<std::string, int>{"stall", 4}));
  EXPECT_FALSE(o.evil_must_fail);
  EXPECT_EQ(std::get<int>(parse({"--evil", "sneaky:2"})), 2);
}

TEST(EvilTally, CountsEndsByReasonAndFlagsTheStillConnected) {
  const std::vector<EvilEnd> ends = {
      {"flood", true, "protocol error"},
      {"flood", true, std::nullopt},
      {"stall", true, "handshake timed out"},
      {"stall", true, "timed out"},
  };
  const auto outcomes = tally_evil(ends);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].script, "flood");
  EXPECT_EQ(outcomes[0].bots, 2u);
  EXPECT_EQ(outcomes[0].still_connected, 1u);
  EXPECT_EQ(outcomes[0].ended.at("protocol error"), 1u);
  EXPECT_EQ(outcomes[1].unexpected, 1u);
  const ThresholdCheck check = evil_check(outcomes);
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.figure, 1.0);
  const std::string text = evil_summary_text(outcomes);
  EXPECT_NE(text.find("still connected 1"), std::string::npos) << text;
  EXPECT_NE(evil_json(outcomes).find("\"unexpected_reason\":1"), std::string::npos);
}

TEST(EvilTally, PassesWhenEveryEvilBotEnded) {
  const std::vector<EvilEnd> ends = {{"nan", true, "protocol error"}, {"mute", true, "timed out"}};
  EXPECT_TRUE(evil_check(tally_evil(ends)).passed);
}

TEST(PacketForge, HelloCarriesTheGamesFingerprint) {
  const auto game = testing::arena_setup();
  const auto bytes = PacketForge(*game).hello("evil");
  BitReader r(bytes);
  PacketPrefix prefix;
  Hello hello;
  ASSERT_TRUE(serialize(r, prefix) && serialize(r, hello) && r.finish());
  EXPECT_EQ(prefix.type, PacketType::kHello);
  EXPECT_EQ(hello.fingerprint, arena::Game::protocol_fingerprint());
}

TEST(PacketForge, InputsDecodeAndOutOfRangeCodesDoNot) {
  const arena::Schema& s = arena::schema();
  const auto game = testing::arena_setup();
  PacketForge forge(*game);
  const Time now = Time::from_micros(1000);
  for (const bool valid : {true, false}) {
    const auto bytes = valid ? forge.inputs(Tick(500), 3, now) : forge.out_of_range_input(Tick(500), now);
    ASSERT_FALSE(bytes.empty());
    BitReader r(bytes);
    PacketHeader header;
    ASSERT_TRUE(serialize(r, header));
    EXPECT_EQ(header.prefix.type, PacketType::kInput);
    prediction::InputPacket packet;
    const bool decoded = prediction::serialize_input_packet(r, packet, s.schema, s.input_type) && r.finish();
    EXPECT_EQ(decoded, valid);
    if (valid) {
      EXPECT_EQ(packet.first_tick, Tick(500));
      EXPECT_EQ(packet.inputs.size(), 3u);
    } else {
      ASSERT_TRUE(r.error().has_value());
      EXPECT_EQ(r.error()->code, ErrorCode::kOutOfRange);
    }
  }
}

TEST(PacketForge, ReadsOnlyAWelcome) {
  const auto game = testing::arena_setup();
  EXPECT_FALSE(PacketForge::welcome(PacketForge(*game).hello("x")).has_value());
  BitWriter w(64);
  PacketPrefix prefix{kProtocolId, kProtocolVersion, PacketType::kWelcome};
  Welcome body{7, 60, 30, Tick(1234)};
  ASSERT_TRUE(serialize(w, prefix) && serialize(w, body));
  const auto welcome = PacketForge::welcome(w.take());
  ASSERT_TRUE(welcome.has_value());
  EXPECT_EQ(welcome->client_id, 7u);
  EXPECT_EQ(welcome->server_tick, Tick(1234));
}

TEST(EvilMix, SessionAttackersAreEvilScriptsThatExpectNoHarm) {
  using Mix = std::vector<std::pair<std::string, int>>;
  auto mix = parse_evil_mix("spoof-disconnect:1,spoof-keepalive:1,forge-input:2,replay:1");
  ASSERT_TRUE(std::holds_alternative<Mix>(mix));
  EXPECT_EQ(std::get<Mix>(mix).size(), 4u);
  for (const char* name : {"spoof-disconnect", "spoof-keepalive", "forge-input", "replay"}) {
    const EvilScriptInfo* info = find_evil_script(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_TRUE(attacks_a_session(info->kind)) << name;
    EXPECT_EQ(info->expected_reason, kNoHarmSeen) << name;
  }
  EXPECT_FALSE(attacks_a_session(find_evil_script("flood")->kind));
  // A victim that lost its session makes the attacker's end unexpected.
  const std::vector<EvilEnd> ends = {{"replay", false, std::string(kNoHarmSeen)},
                                     {"replay", false, std::string("victim harmed: it lost its connection")}};
  const auto outcomes = tally_evil(ends);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].unexpected, 1u);
}

TEST(PacketForge, AKeepAliveCarriesTheSequenceAsked) {
  const auto game = testing::arena_setup();
  PacketForge forge(*game);
  const auto bytes = forge.keep_alive_numbered(40000, Time::from_micros(1000));
  ASSERT_FALSE(bytes.empty());
  BitReader r(bytes);
  PacketHeader header;
  ASSERT_TRUE(serialize(r, header));
  EXPECT_EQ(header.prefix.type, PacketType::kKeepAlive);
  EXPECT_EQ(header.sequence.value(), 40000u);
}

}  // namespace
}  // namespace tickwire::bots
