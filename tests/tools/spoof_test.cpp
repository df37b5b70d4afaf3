// tickwire-spoof's pure parts: the datagrams byte by byte, the command
// line, the pacing arithmetic and the summary figures.

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <set>
#include <variant>
#include <vector>

#include "datagrams.h"
#include "options.h"
#include "pacing.h"
#include "summary.h"
#include "tickwire/transport/connect_challenge.h"

namespace tickwire::spoof {
namespace {

namespace challenge = transport::challenge;
using Bytes = std::vector<std::uint8_t>;

TEST(SpoofDatagrams, EnetConnectLayoutIsByteExact) {
  const Bytes got = enet_connect({.sent_time = 0x1234, .outgoing_peer_id = 0x0ABC, .connect_id = 0xDEADBEEF});
  const Bytes want{
      0x8F, 0xFF,              // peer id 0x0FFF | sent-time flag
      0x12, 0x34,              // sent time
      0x82, 0xFF, 0x00, 0x01,  // CONNECT | ACKNOWLEDGE, channel 0xFF, reliable sequence 1
      0x0A, 0xBC,              // outgoing peer id
      0xFF, 0xFF,              // incoming and outgoing session ids
      0x00, 0x00, 0x05, 0x70,  // mtu 1392
      0x00, 0x01, 0x00, 0x00,  // window size 65536
      0x00, 0x00, 0x00, 0x02,  // channel count
      0x00, 0x00, 0x00, 0x00,  // incoming bandwidth
      0x00, 0x00, 0x00, 0x00,  // outgoing bandwidth
      0x00, 0x00, 0x13, 0x88,  // packet throttle interval 5000
      0x00, 0x00, 0x00, 0x02,  // packet throttle acceleration
      0x00, 0x00, 0x00, 0x02,  // packet throttle deceleration
      0xDE, 0xAD, 0xBE, 0xEF,  // connect id
      0x00, 0x00, 0x00, 0x00,  // data
  };
  ASSERT_EQ(want.size(), kEnetConnectSize);
  EXPECT_EQ(got, want);
}

TEST(SpoofDatagrams, RandomConnectsDifferOnlyInTheirRandomFields) {
  Rng rng(7);
  const Bytes reference = enet_connect({.sent_time = 99, .outgoing_peer_id = 0, .connect_id = 0});
  for (int i = 0; i < 500; ++i) {
    const Bytes d = random_connect(rng, 99);
    ASSERT_EQ(d.size(), kEnetConnectSize);
    const unsigned peer_id = (unsigned{d[8]} << 8) | d[9];
    EXPECT_LE(peer_id, kEnetMaxOutgoingPeerId);
    // Everything but the outgoing peer id (8..9) and the connect id (44..47).
    EXPECT_TRUE(std::equal(d.begin(), d.begin() + 8, reference.begin()));
    EXPECT_TRUE(std::equal(d.begin() + 10, d.begin() + 44, reference.begin() + 10));
    EXPECT_TRUE(std::equal(d.begin() + 48, d.end(), reference.begin() + 48));
  }
}

TEST(SpoofDatagrams, HelloDecodesAsAChallengeHello) {
  Rng rng(1);
  for (int i = 0; i < 50; ++i) {
    const Bytes d = random_hello(rng);
    EXPECT_EQ(d.size(), challenge::kHelloSize);
    const auto message = challenge::decode(d);
    ASSERT_TRUE(message.has_value());
    EXPECT_TRUE(std::holds_alternative<challenge::Hello>(*message));
  }
}

TEST(SpoofDatagrams, ResponseDecodesWithAndWithoutAToken) {
  Rng rng(2);
  int with_token = 0;
  int without_token = 0;
  for (int i = 0; i < 200; ++i) {
    const auto message = challenge::decode(random_response(rng));
    ASSERT_TRUE(message.has_value());
    const auto* response = std::get_if<challenge::Response>(&*message);
    ASSERT_NE(response, nullptr);
    EXPECT_LE(response->token.size(), challenge::kMaxTokenSize);
    (response->token.empty() ? without_token : with_token)++;
  }
  EXPECT_GT(with_token, 50);
  EXPECT_GT(without_token, 50);
}

TEST(SpoofDatagrams, GarbageLengthsStayInRangeAndSomeCarryTheMagic) {
  Rng rng(3);
  int with_magic = 0;
  std::size_t shortest = kMaxGarbageSize;
  std::size_t longest = 0;
  for (int i = 0; i < 2000; ++i) {
    const Bytes d = random_garbage(rng);
    ASSERT_GE(d.size(), 1U);
    ASSERT_LE(d.size(), kMaxGarbageSize);
    shortest = std::min(shortest, d.size());
    longest = std::max(longest, d.size());
    if (challenge::is_challenge_datagram(d)) ++with_magic;
  }
  EXPECT_GT(with_magic, 300);
  EXPECT_LT(with_magic, 1000);
  EXPECT_LT(shortest, 100U);
  EXPECT_GT(longest, 1100U);
}

TEST(SpoofDatagrams, SameSeedSameBytes) {
  Rng a(42);
  Rng b(42);
  for (Kind kind : kAllKinds) EXPECT_EQ(make_datagram(kind, a, 5), make_datagram(kind, b, 5)) << to_string(kind);
}

TEST(SpoofDatagrams, KindNamesRoundTrip) {
  for (Kind kind : kAllKinds) EXPECT_EQ(kind_from_string(to_string(kind)), kind);
  EXPECT_FALSE(kind_from_string("flood").has_value());
}

TEST(SpoofTarget, LoopbackTargetsAreAccepted) {
  auto a = parse_loopback_target("127.0.0.1:7777");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->address, 0x7F000001U);
  EXPECT_EQ(a->port, 7777);
  auto b = parse_loopback_target("127.200.3.4:1");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->to_string(), "127.200.3.4:1");
  auto c = parse_loopback_target("localhost:9");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->address, 0x7F000001U);
}

TEST(SpoofTarget, OtherAddressesAreRefused) {
  for (const char* text : {"10.0.0.1:7777", "8.8.8.8:53", "0.0.0.0:1", "128.0.0.1:7777", "192.168.1.1:7777"}) {
    auto parsed = parse_loopback_target(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_NE(parsed.error().detail.find("loopback"), std::string::npos) << text;
  }
  for (const char* text : {"127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "[::1]:7777", "example.com:80", ""}) {
    EXPECT_FALSE(parse_loopback_target(text).ok()) << text;
  }
}

TEST(SpoofMix, KindsAreParsedInOrder) {
  auto mix = parse_mix("garbage,connect,garbage");
  ASSERT_TRUE(mix.ok());
  EXPECT_EQ(*mix, (std::vector<Kind>{Kind::kGarbage, Kind::kConnect, Kind::kGarbage}));
}

TEST(SpoofMix, UnknownKindsAreRefused) {
  for (const char* text : {"flood", "connect,flood", "", "connect,", "Connect"}) {
    auto mix = parse_mix(text);
    ASSERT_FALSE(mix.ok()) << text;
    EXPECT_NE(mix.error().detail.find("unknown kind"), std::string::npos);
  }
}

std::variant<Options, int> parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"tickwire-spoof"};
  argv.insert(argv.end(), args.begin(), args.end());
  return parse_options(static_cast<int>(argv.size()), argv.data());
}

TEST(SpoofOptions, ValuesAreParsed) {
  auto parsed = parse({"--target", "127.0.0.1:7777", "--rate", "500", "--sources", "16", "--duration", "2", "--mix",
                       "hello,response", "--seed", "9", "--json", "out.json", "--quiet"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  EXPECT_EQ(o.target.port, 7777);
  EXPECT_EQ(o.rate, 500.0);
  EXPECT_EQ(o.sources, 16);
  EXPECT_EQ(o.duration_s, 2.0);
  EXPECT_EQ(o.mix, (std::vector<Kind>{Kind::kHello, Kind::kResponse}));
  EXPECT_EQ(o.seed, 9U);
  EXPECT_EQ(o.json_path, "out.json");
  EXPECT_TRUE(o.quiet);
}

TEST(SpoofOptions, DefaultsMixAllKinds) {
  auto parsed = parse({"--target", "127.0.0.1:7777"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  EXPECT_EQ(o.rate, 10000.0);
  EXPECT_EQ(o.sources, 256);
  EXPECT_EQ(o.duration_s, 10.0);
  EXPECT_EQ(o.mix.size(), kKindCount);
}

TEST(SpoofOptions, BadValuesExitWithTwo) {
  const std::vector<std::vector<const char*>> bad{
      {"--target", "10.1.2.3:7777"},
      {"--target", "8.8.8.8:53"},
      {"--target", "nonsense"},
      {"--target", "127.0.0.1:7777", "--mix", "connect,flood"},
      {"--target", "127.0.0.1:7777", "--rate", "0"},
      {"--target", "127.0.0.1:7777", "--rate", "-5"},
      {"--target", "127.0.0.1:7777", "--sources", "0"},
      {"--target", "127.0.0.1:7777", "--sources", "65536"},
      {"--target", "127.0.0.1:7777", "--duration", "0"},
      {"--target", "127.0.0.1:7777", "--bogus"},
      {"--rate", "10"},
  };
  for (const auto& args : bad) {
    std::vector<const char*> argv{"tickwire-spoof"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto parsed = parse_options(static_cast<int>(argv.size()), argv.data());
    ASSERT_TRUE(std::holds_alternative<int>(parsed)) << args[1];
    EXPECT_EQ(std::get<int>(parsed), 2) << args[1];
  }
}

TEST(SpoofPacing, AttemptsAreDueEvenlyAndCapped) {
  using std::chrono::milliseconds;
  const std::uint64_t total = total_attempts(10000.0, 3.0);
  EXPECT_EQ(total, 30000U);
  EXPECT_EQ(attempts_due(10000.0, milliseconds(0), total), 0U);
  EXPECT_EQ(attempts_due(10000.0, milliseconds(1), total), 10U);
  EXPECT_EQ(attempts_due(10000.0, std::chrono::microseconds(1550), total), 15U);
  EXPECT_EQ(attempts_due(10000.0, milliseconds(1000), total), 10000U);
  EXPECT_EQ(attempts_due(10000.0, milliseconds(3000), total), total);
  EXPECT_EQ(attempts_due(10000.0, milliseconds(5000), total), total) << "never more than the run's total";
  // A slow rate: one attempt every 400 ms.
  EXPECT_EQ(total_attempts(2.5, 2.0), 5U);
  EXPECT_EQ(attempts_due(2.5, milliseconds(399), 5), 0U);
  EXPECT_EQ(attempts_due(2.5, milliseconds(400), 5), 1U);
}

TEST(SpoofPacing, EverySourceSendsEveryKindAndRoundsKeepTheMix) {
  for (std::size_t sources : {1U, 2U, 3U, 16U, 256U}) {
    const std::size_t mix = 4;
    std::vector<std::set<std::size_t>> kinds_of(sources);
    std::vector<std::uint64_t> per_kind(mix, 0);
    const std::uint64_t attempts = sources * mix;
    for (std::uint64_t i = 0; i < attempts; ++i) {
      const Slot slot = slot_of(i, sources, mix);
      ASSERT_EQ(slot.source, i % sources);
      kinds_of[slot.source].insert(slot.kind_index);
      ++per_kind[slot.kind_index];
    }
    for (const auto& kinds : kinds_of) EXPECT_EQ(kinds.size(), mix) << sources << " sources";
    for (std::uint64_t count : per_kind) EXPECT_EQ(count, sources) << sources << " sources";
  }
}

TEST(SpoofSummary, RatiosComeFromTheCounters) {
  AttackResult result;
  result.sent_by_kind[index_of(Kind::kConnect)] = {10, 520};
  result.sent_by_kind[index_of(Kind::kHello)] = {10, 640};
  result.sources = {
      {{0x7F420001, 1000}, {10, 600}, {2, 60}},
      {{0x7F420002, 1001}, {10, 560}, {0, 0}},
      {{0x7F420003, 1002}, {0, 0}, {1, 10}},  // sent nothing: no ratio
  };
  result.sending_time = std::chrono::seconds(2);
  const Summary s = summarize(result);
  EXPECT_EQ(s.sent.packets, 20U);
  EXPECT_EQ(s.sent.bytes, 1160U);
  EXPECT_EQ(s.received.packets, 3U);
  EXPECT_EQ(s.received.bytes, 70U);
  EXPECT_EQ(s.sources_answered, 2U);
  EXPECT_DOUBLE_EQ(s.max_source_ratio, 0.1);
  ASSERT_TRUE(s.max_ratio_source.has_value());
  EXPECT_EQ(s.max_ratio_source->to_string(), "127.66.0.1:1000");
  EXPECT_DOUBLE_EQ(s.overall_ratio, 70.0 / 1160.0);
  EXPECT_DOUBLE_EQ(s.achieved_rate, 10.0);
  const std::string json = summary_json(AttackConfig{}, result, s);
  EXPECT_NE(json.find("\"sources_answered\":2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"received\":{\"packets\":3,\"bytes\":70}"), std::string::npos) << json;
}

TEST(SpoofSummary, NothingBackNamesNoSource) {
  AttackResult result;
  result.sent_by_kind[index_of(Kind::kGarbage)] = {1, 100};
  result.sources = {{{0x7F420001, 1000}, {1, 100}, {0, 0}}};
  const Summary s = summarize(result);
  EXPECT_EQ(s.sources_answered, 0U);
  EXPECT_EQ(s.max_source_ratio, 0.0);
  EXPECT_FALSE(s.max_ratio_source.has_value());
  EXPECT_NE(summary_json(AttackConfig{}, result, s).find("\"max_ratio_source\":null"), std::string::npos);
}

}  // namespace
}  // namespace tickwire::spoof
