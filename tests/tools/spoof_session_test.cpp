// tickwire-spoof's session attacks, their pure parts: the datagrams each
// attack forges, a captured datagram rewritten, and the options.

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <variant>
#include <vector>

#include "options.h"
#include "session_forgery.h"

namespace tickwire::spoof {
namespace {

std::variant<Options, int> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tickwire-spoof");
  return parse_options(static_cast<int>(args.size()), args.data());
}

TEST(SpoofSessionDatagrams, TheOldFramingTriesEverySlotAndSessionOnce) {
  std::mt19937_64 rng(1);
  std::set<std::uint16_t> headers;
  for (std::uint64_t n = 0; n < kLegacyGuesses; ++n) {
    const auto d = forged_session_datagram(SessionAttack::kSpoofDisconnect, n, rng);
    ASSERT_GE(d.size(), 2U);
    headers.insert(static_cast<std::uint16_t>(((d[0] << 8) | d[1]) & 0x3FFF));  // slot and session
  }
  EXPECT_EQ(headers.size(), kLegacyGuesses);
}

TEST(SpoofSessionDatagrams, SealedGuessesHaveTheSealedLayout) {
  std::mt19937_64 rng(2);
  for (const SessionAttack attack : {SessionAttack::kSpoofDisconnect, SessionAttack::kSpoofKeepAlive,
                                     SessionAttack::kForgeInput, SessionAttack::kSpoofPing, SessionAttack::kJunk}) {
    const auto d = forged_session_datagram(attack, kLegacyGuesses + 5, rng);
    ASSERT_GE(d.size(), 22U) << to_string(attack);
    EXPECT_EQ(d[0] & 0xC0, 0x40) << to_string(attack);
  }
  // A given payload is carried as it is (a game's keep-alive, its inputs).
  const std::vector<std::uint8_t> keep_alive{1, 2, 3, 4, 5};
  const auto sealed = forged_session_datagram(SessionAttack::kSpoofKeepAlive, kLegacyGuesses, rng, keep_alive);
  EXPECT_EQ(sealed.size(), 6 + keep_alive.size() + 16);
  EXPECT_TRUE(std::equal(keep_alive.begin(), keep_alive.end(), sealed.begin() + 6));
  const auto old = forged_session_datagram(SessionAttack::kSpoofKeepAlive, 0, rng, keep_alive);
  EXPECT_EQ(old, (std::vector<std::uint8_t>{0x40, 0x00, 1, 2, 3, 4, 5}));
}

TEST(SpoofSessionDatagrams, ARewriteAdvancesThePacketNumberAndFlipsPayloadBytes) {
  std::vector<std::uint8_t> captured(62, 0x11);
  captured[0] = 0x60 | 0x01;  // a session payload, packet number bits 12..8 = 1
  captured[5] = 0xFF;         // bits 7..0: number 0x1FF
  const auto copy = rewritten(captured, 1);
  ASSERT_EQ(copy.size(), captured.size());
  EXPECT_EQ(copy[0], 0x62);  // 0x200: the next number
  EXPECT_EQ(copy[5], 0x00);
  EXPECT_TRUE(std::equal(copy.begin() + 1, copy.begin() + 5, captured.begin() + 1));  // same connection id
  EXPECT_NE(copy, captured);
  EXPECT_TRUE(std::equal(copy.end() - 16, copy.end(), captured.end() - 16));  // the tag left as it was
}

TEST(SpoofSessionOptions, AnAttackNeedsAVictimOnLoopback) {
  auto parsed = parse({"--target", "127.0.0.1:7777", "--attack", "replay", "--victim", "127.0.0.1:5000",
                       "--toward-client", "--budget", "1000000"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  EXPECT_EQ(o.attack, SessionAttack::kReplay);
  EXPECT_EQ(o.victim.port, 5000);
  EXPECT_TRUE(o.toward_client);
  EXPECT_EQ(o.budget, 1000000U);
  for (const auto& bad : std::vector<std::vector<const char*>>{
           {"--target", "127.0.0.1:7777", "--attack", "replay"},
           {"--target", "127.0.0.1:7777", "--attack", "teleport", "--victim", "127.0.0.1:5000"},
           {"--target", "127.0.0.1:7777", "--attack", "junk", "--victim", "10.0.0.1:5000"},
           {"--target", "127.0.0.1:7777", "--attack", "junk", "--victim", "127.0.0.1:5000", "--budget", "0"},
       }) {
    auto refused = parse(bad);
    ASSERT_TRUE(std::holds_alternative<int>(refused)) << bad[3];
    EXPECT_EQ(std::get<int>(refused), 2);
  }
}

TEST(SpoofSessionOptions, AttackNamesRoundTrip) {
  for (const char* name : {"spoof-disconnect", "spoof-keepalive", "forge-input", "spoof-ping", "junk", "replay"}) {
    const auto attack = session_attack_from_string(name);
    ASSERT_TRUE(attack.has_value()) << name;
    EXPECT_STREQ(to_string(*attack), name);
  }
  EXPECT_FALSE(session_attack_from_string("flood").has_value());
}

}  // namespace
}  // namespace tickwire::spoof
