// The connecting side of address validation: retries, giving up, answers
// that do not match or prove nothing. Whole exchanges against the accepting
// side: handshake_test.cpp.

#include "challenge_client.h"

#include <gtest/gtest.h>

#include "address_validator.h"
#include "handshake_crypto.h"

namespace tickwire::transport {
namespace {

namespace ch = challenge;

constexpr Endpoint kServer{0x0100007F, 7777};
constexpr Endpoint kImpostor{0x0100007F, 7778};
const PeerId kPeer(5);

struct ClientHarness {
  // Without AES-256-GCM unless asked, whatever this CPU has.
  explicit ClientHarness(Duration give_up_after = Duration::seconds(5), bool aes = false)
      : client(Duration::millis(250), give_up_after, aes) {}

  ChallengeClient client;
  ChallengeClient::Actions actions;
  Time now = Time::from_micros(50'000'000);

  std::uint64_t start(ChallengeClient::Credentials credentials = {}) {
    client.start(kPeer, kServer, credentials, now, actions);
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
  h.client.receive(ch::ChallengeMsg{nonce, {}, {}}, kImpostor, h.now, h.actions);
  h.client.receive(ch::ChallengeMsg{nonce + 1, {}, {}}, kServer, h.now, h.actions);
  // An ACCEPTED before any challenge was answered is not believed.
  h.client.receive(ch::Accepted{nonce}, kServer, h.now, h.actions);
  h.client.receive(ch::Denied{nonce, DisconnectReason::kServerFull}, kServer, h.now, h.actions);
  EXPECT_TRUE(h.actions.send.empty());
  EXPECT_TRUE(h.actions.done.empty());
  EXPECT_TRUE(h.client.pending(kPeer));
}

TEST(ChallengeClient, AnswersAChallengeWithItsCookieKeyAndToken) {
  ClientHarness h;
  const std::uint64_t nonce = h.start({{9, 8, 7}, TokenKey{}, std::nullopt, false});
  ch::Cookie cookie{};
  cookie[0] = 42;
  h.client.receive(ch::ChallengeMsg{nonce, cookie, {}}, kServer, h.now, h.actions);
  ASSERT_EQ(h.actions.send.size(), 1u);
  const auto response = ch::decode(h.actions.send[0].bytes);
  ASSERT_TRUE(response && std::holds_alternative<ch::Response>(*response));
  const auto& r = std::get<ch::Response>(*response);
  EXPECT_EQ(r.cookie, cookie);
  EXPECT_EQ(r.token, (std::vector<std::uint8_t>{9, 8, 7}));
  EXPECT_EQ(r.flags, 0u);
  EXPECT_NE(r.client_key, ch::PublicKey{});
}

TEST(ChallengeClient, ATokenWithoutItsSessionKeyFailsAtOnce) {
  ClientHarness h;
  h.client.start(kPeer, kServer, {{1, 2, 3}, std::nullopt, std::nullopt, false}, h.now, h.actions);
  EXPECT_TRUE(h.actions.send.empty());
  ASSERT_EQ(h.actions.done.size(), 1u);
  EXPECT_EQ(h.actions.done[0].failure, DisconnectReason::kTokenInvalid);
  EXPECT_FALSE(h.client.pending(kPeer));
}

TEST(ChallengeClient, APlaintextExchangeEndsWithTheServersConnectionId) {
  ClientHarness h;
  const std::uint64_t nonce = h.start({{}, std::nullopt, std::nullopt, true});
  h.client.receive(ch::ChallengeMsg{nonce, {}, {}}, kServer, h.now, h.actions);
  ASSERT_EQ(h.actions.send.size(), 1u);
  EXPECT_EQ(std::get<ch::Response>(*ch::decode(h.actions.send[0].bytes)).flags, ch::kFlagPlaintext);
  h.client.receive(ch::Accepted{nonce, 77, ch::kFlagPlaintext, {}, {}}, kServer, h.now, h.actions);
  ASSERT_EQ(h.actions.done.size(), 1u);
  EXPECT_FALSE(h.actions.done[0].failure.has_value());
  EXPECT_EQ(h.actions.done[0].server, kServer);
  EXPECT_EQ(h.actions.done[0].session.connection_id, 77u);
  EXPECT_TRUE(h.actions.done[0].session.plaintext);
}

TEST(ChallengeClient, AnAcceptedNoHonestServerSendsFails) {
  struct Case {
    ch::Accepted accepted;
    DisconnectReason failure;
  };
  const Case cases[] = {
      {{0, 0, 0, {}, {}}, DisconnectReason::kProtocolError},                   // connection id 0
      {{0, 5, ch::kFlagPlaintext, {}, {}}, DisconnectReason::kProtocolError},  // a session not asked for
      {{0, 5, ch::kFlagAes256Gcm, {}, {}}, DisconnectReason::kProtocolError},  // a cipher not offered
      {{0, 5, 0, {}, {}}, DisconnectReason::kServerKeyMismatch},               // no confirmation
  };
  for (Case c : cases) {
    ClientHarness h;
    const std::uint64_t nonce = h.start();
    // A key the client can use, so that only the confirmation is wrong.
    h.client.receive(ch::ChallengeMsg{nonce, {}, handshake::KxKeyPair::generate().public_key()}, kServer, h.now,
                     h.actions);
    c.accepted.nonce = nonce;
    h.client.receive(c.accepted, kServer, h.now, h.actions);
    ASSERT_EQ(h.actions.done.size(), 1u);
    EXPECT_EQ(h.actions.done[0].failure, c.failure);
    EXPECT_EQ(h.actions.done[0].session.connection_id, 0u);
  }
}

TEST(ChallengeClient, OffersAesGcmWhenItHasItAndTakesEitherAnswer) {
  for (const std::uint8_t answer : {std::uint8_t{0}, ch::kFlagAes256Gcm}) {
    ClientHarness h(Duration::seconds(5), true);
    const std::uint64_t nonce = h.start({{}, std::nullopt, std::nullopt, true});
    h.client.receive(ch::ChallengeMsg{nonce, {}, {}}, kServer, h.now, h.actions);
    ASSERT_EQ(h.actions.send.size(), 1u);
    EXPECT_EQ(std::get<ch::Response>(*ch::decode(h.actions.send[0].bytes)).flags,
              ch::kFlagPlaintext | ch::kFlagAes256Gcm);
    const auto flags = static_cast<std::uint8_t>(ch::kFlagPlaintext | answer);
    h.client.receive(ch::Accepted{nonce, 77, flags, {}, {}}, kServer, h.now, h.actions);
    ASSERT_EQ(h.actions.done.size(), 1u);
    EXPECT_FALSE(h.actions.done[0].failure.has_value());
    EXPECT_EQ(h.actions.done[0].session.cipher,
              answer != 0 ? SessionCipher::kAes256Gcm : SessionCipher::kChaCha20Poly1305);
  }
}

TEST(ChallengeClient, AsksForAFreshCookieWhenItsOwnGrowsOld) {
  ClientHarness h(Duration::seconds(30));
  const std::uint64_t nonce = h.start();
  h.client.receive(ch::ChallengeMsg{nonce, {}, {}}, kServer, h.now, h.actions);
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
  const auto hello = ch::decode(h.actions.send[0].bytes);
  ASSERT_TRUE(hello && std::holds_alternative<ch::Hello>(*hello));
  // A new round, with a new nonce: late answers to the old one are ignored.
  EXPECT_NE(std::get<ch::Hello>(*hello).nonce, nonce);
  EXPECT_EQ(h.client.nonce(kPeer), std::get<ch::Hello>(*hello).nonce);
  h.client.receive(ch::Denied{nonce, DisconnectReason::kServerFull}, kServer, h.now, h.actions);
  EXPECT_TRUE(h.actions.done.empty());
}

TEST(ChallengeClient, ADenialCarriesItsReasonAndAnEmptyOneStillFails) {
  for (const DisconnectReason reason : {DisconnectReason::kTokenExpired, DisconnectReason::kUnknown}) {
    ClientHarness h;
    const std::uint64_t nonce = h.start();
    h.client.receive(ch::ChallengeMsg{nonce, {}, {}}, kServer, h.now, h.actions);
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

}  // namespace
}  // namespace tickwire::transport
