// The connecting side of address validation: retries, giving up, answers
// that do not match, and a whole exchange against the accepting side.

#include "challenge_client.h"

#include <gtest/gtest.h>

#include "address_validator.h"

namespace tickwire::transport {
namespace {

namespace ch = challenge;

constexpr Endpoint kServer{0x0100007F, 7777};
constexpr Endpoint kImpostor{0x0100007F, 7778};
const PeerId kPeer(5);

struct ClientHarness {
  explicit ClientHarness(Duration give_up_after = Duration::seconds(5))
      : client(Duration::millis(250), give_up_after) {}

  ChallengeClient client;
  ChallengeClient::Actions actions;
  Time now = Time::from_micros(50'000'000);

  std::uint64_t start(std::vector<std::uint8_t> token = {}) {
    client.start(kPeer, kServer, std::move(token), now, actions);
    EXPECT_EQ(actions.send.size(), 1u);
    const auto hello = ch::decode(actions.send.back().bytes);
    EXPECT_TRUE(hello && std::holds_alternative<ch::Hello>(*hello));
    actions.send.clear();
    return std::get<ch::Hello>(*hello).nonce;
  }
};

TEST(ChallengeClient, ResendsItsHelloUntilAnsweredThenGivesUp) {
  ClientHarness h;
  (void)h.start();
  h.now += Duration::millis(100);
  h.client.tick(h.now, h.actions);
  EXPECT_TRUE(h.actions.send.empty());
  h.now += Duration::millis(200);
  h.client.tick(h.now, h.actions);
  EXPECT_EQ(h.actions.send.size(), 1u);
  h.now += Duration::seconds(5);
  h.client.tick(h.now, h.actions);
  ASSERT_EQ(h.actions.done.size(), 1u);
  EXPECT_EQ(h.actions.done[0].failure, DisconnectReason::kConnectFailed);
  EXPECT_FALSE(h.client.pending(kPeer));
}

TEST(ChallengeClient, AnswersFromTheWrongSourceOrWithTheWrongNonceAreIgnored) {
  ClientHarness h;
  const std::uint64_t nonce = h.start();
  h.client.receive(ch::ChallengeMsg{nonce, {}}, kImpostor, h.now, h.actions);
  h.client.receive(ch::ChallengeMsg{nonce + 1, {}}, kServer, h.now, h.actions);
  // An ACCEPTED before any challenge was answered is not believed.
  h.client.receive(ch::Accepted{nonce}, kServer, h.now, h.actions);
  h.client.receive(ch::Denied{nonce, DisconnectReason::kServerFull}, kServer, h.now, h.actions);
  EXPECT_TRUE(h.actions.send.empty());
  EXPECT_TRUE(h.actions.done.empty());
  EXPECT_TRUE(h.client.pending(kPeer));
}

TEST(ChallengeClient, AnswersAChallengeWithItsCookieAndToken) {
  ClientHarness h;
  const std::uint64_t nonce = h.start({9, 8, 7});
  ch::Cookie cookie{};
  cookie[0] = 42;
  h.client.receive(ch::ChallengeMsg{nonce, cookie}, kServer, h.now, h.actions);
  ASSERT_EQ(h.actions.send.size(), 1u);
  const auto response = ch::decode(h.actions.send[0].bytes);
  ASSERT_TRUE(response && std::holds_alternative<ch::Response>(*response));
  EXPECT_EQ(std::get<ch::Response>(*response).cookie, cookie);
  EXPECT_EQ(std::get<ch::Response>(*response).token, (std::vector<std::uint8_t>{9, 8, 7}));
  h.client.receive(ch::Accepted{nonce}, kServer, h.now, h.actions);
  ASSERT_EQ(h.actions.done.size(), 1u);
  EXPECT_FALSE(h.actions.done[0].failure.has_value());
  EXPECT_EQ(h.actions.done[0].server, kServer);
}

TEST(ChallengeClient, AsksForAFreshCookieWhenItsOwnGrowsOld) {
  ClientHarness h(Duration::seconds(30));
  const std::uint64_t nonce = h.start();
  h.client.receive(ch::ChallengeMsg{nonce, {}}, kServer, h.now, h.actions);
  ASSERT_EQ(h.actions.send.size(), 1u);
  h.actions.send.clear();
  // Unanswered (the server's pending places are full): the RESPONSE is
  // resent while the cookie is fresh, then a HELLO asks for a new one.
  h.now += Duration::seconds(3);
  h.client.tick(h.now, h.actions);
  ASSERT_EQ(h.actions.send.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<ch::Response>(*ch::decode(h.actions.send[0].bytes)));
  h.actions.send.clear();
  h.now += Duration::millis(3500);
  h.client.tick(h.now, h.actions);
  ASSERT_EQ(h.actions.send.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<ch::Hello>(*ch::decode(h.actions.send[0].bytes)));
}

TEST(ChallengeClient, ADenialCarriesItsReasonAndAnEmptyOneStillFails) {
  for (const DisconnectReason reason : {DisconnectReason::kTokenExpired, DisconnectReason::kUnknown}) {
    ClientHarness h;
    const std::uint64_t nonce = h.start();
    h.client.receive(ch::ChallengeMsg{nonce, {}}, kServer, h.now, h.actions);
    h.client.receive(ch::Denied{nonce, reason}, kServer, h.now, h.actions);
    ASSERT_EQ(h.actions.done.size(), 1u);
    EXPECT_EQ(h.actions.done[0].failure,
              reason == DisconnectReason::kUnknown ? DisconnectReason::kConnectFailed : reason);
  }
}

TEST(ChallengeClient, CancelledExchangesEndQuietly) {
  ClientHarness h;
  (void)h.start();
  h.client.cancel(kPeer);
  h.now += Duration::seconds(10);
  h.client.tick(h.now, h.actions);
  EXPECT_TRUE(h.actions.send.empty());
  EXPECT_TRUE(h.actions.done.empty());
}

TEST(ChallengeClient, CompletesAnExchangeWithTheAcceptingSide) {
  ClientHarness h;
  AddressValidator server{AddressValidationConfig{}};
  constexpr Endpoint kClient{0x0100007F, 50000};
  h.client.start(kPeer, kServer, {}, h.now, h.actions);
  for (int round = 0; round < 4 && h.actions.done.empty(); ++round) {
    auto outgoing = std::move(h.actions.send);
    h.actions.send.clear();
    for (const auto& out : outgoing) {
      const auto reply = server.handle(out.bytes, kClient, {h.now, 0}, {});
      if (reply) h.client.receive(*ch::decode(*reply), kServer, h.now, h.actions);
    }
  }
  ASSERT_EQ(h.actions.done.size(), 1u);
  EXPECT_FALSE(h.actions.done[0].failure.has_value());
  EXPECT_TRUE(server.admitted(kClient, h.now));
}

}  // namespace
}  // namespace tickwire::transport
