// Handshake v2 end to end (docs/security.md): a ChallengeClient and an
// AddressValidator talking through encode and decode, with stepped time and
// no sockets. Both ends must agree on the connection id and the keys, in
// every mode, and every proof a man in the middle could fake must fail.

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "address_validator.h"
#include "challenge_client.h"
#include "handshake_crypto.h"
#include "tickwire/transport/connect_challenge.h"

namespace tickwire::transport {
namespace {

namespace ch = challenge;
using Bytes = std::vector<std::uint8_t>;
using Credentials = ChallengeClient::Credentials;

constexpr Endpoint kServer{0x0100007F, 7777};
constexpr Endpoint kClient{0x0200007F, 50000};
constexpr std::int64_t kUnixNow = 1'800'000'000;
const Address kServerAddress{"127.0.0.1", 7777};
const PeerId kPeer(3);

const ServerIdentity& server_identity() {
  static const ServerIdentity identity = ServerIdentity::generate();
  return identity;
}

AddressValidationConfig server_config() {
  AddressValidationConfig config;
  config.server_identity = server_identity();
  return config;
}

// Whether each end can seal with AES-256-GCM. The handshake only passes
// the choice on (no datagram is sealed here), so both cases run on any CPU.
struct AesSupport {
  bool server = true;
  bool client = true;
};

struct Handshake {
  explicit Handshake(const AddressValidationConfig& config = server_config(), bool allow_plaintext = false,
                     AesSupport aes = {})
      : server(config, allow_plaintext, aes.server), client(Duration::millis(250), Duration::seconds(30), aes.client) {}

  AddressValidator server;
  ChallengeClient client;
  ChallengeClient::Actions actions;
  Time now = Time::from_micros(82'000'000);  // 2 s into a cookie bucket
  // Applied to each datagram on its way to the server, for men in the middle.
  std::function<void(Bytes&)> tamper_request;
  std::function<void(Bytes&)> tamper_answer;
  std::vector<Bytes> answers;  // what the server sent, in order

  void start(const Credentials& credentials) { client.start(kPeer, kServer, credentials, now, actions); }

  // Delivers what the client sent and the answers back, once.
  void exchange_once() {
    auto outgoing = std::move(actions.send);
    actions.send.clear();
    for (auto& out : outgoing) {
      EXPECT_EQ(out.to, kServer);
      if (tamper_request) tamper_request(out.bytes);
      auto reply = server.handle(out.bytes, kClient, {now, kUnixNow}, {});
      if (!reply) continue;
      EXPECT_LT(reply->size(), out.bytes.size());
      if (tamper_answer) tamper_answer(*reply);
      answers.push_back(*reply);
      const auto message = ch::decode(*reply);
      ASSERT_TRUE(message.has_value());
      client.receive(*message, kServer, now, actions);
    }
  }

  // Runs the exchange to its end; the client's verdict.
  ChallengeClient::Done run(const Credentials& credentials = {}) {
    start(credentials);
    for (int round = 0; round < 400 && actions.done.empty(); ++round) {
      exchange_once();
      if (!actions.done.empty()) break;
      now += Duration::millis(250);
      client.tick(now, actions);
    }
    EXPECT_EQ(actions.done.size(), 1u);
    return actions.done.empty() ? ChallengeClient::Done{} : actions.done.front();
  }
};

bool keys_agree(const SessionParams& client, const SessionParams& server) {
  return client.connection_id == server.connection_id && client.plaintext == server.plaintext &&
         client.cipher == server.cipher && client.keys.send == server.keys.receive &&
         client.keys.receive == server.keys.send;
}

void expect_encrypted_session(const ChallengeClient::Done& done, const AddressValidator& server) {
  ASSERT_FALSE(done.failure.has_value()) << to_string(*done.failure);
  const SessionParams* on_server = server.session_of(kClient);
  ASSERT_NE(on_server, nullptr);
  EXPECT_TRUE(keys_agree(done.session, *on_server));
  EXPECT_NE(done.session.connection_id, 0u);
  EXPECT_FALSE(done.session.plaintext);
  EXPECT_NE(done.session.keys.send, done.session.keys.receive);
  EXPECT_NE(done.session.keys.send, (std::array<std::uint8_t, kSessionKeySize>{}));
}

TEST(Handshake, WithoutATokenBothEndsAgreeOnIdAndKeys) {
  Handshake h;
  const auto done = h.run();
  expect_encrypted_session(done, h.server);
  const auto admitted = h.server.take(kClient);
  ASSERT_TRUE(admitted.has_value());
  EXPECT_TRUE(keys_agree(done.session, admitted->session));
}

TEST(Handshake, PinningTheRightKeySucceedsAndAnyOtherFails) {
  Handshake right;
  expect_encrypted_session(right.run({{}, std::nullopt, server_identity().public_key(), false}), right.server);
  // Someone in the middle answering with its own identity: the keys agree
  // with it, but it cannot sign with the pinned key.
  Handshake impostor;
  const auto done = impostor.run({{}, std::nullopt, ServerIdentity::generate().public_key(), false});
  EXPECT_EQ(done.failure, DisconnectReason::kServerKeyMismatch);
  Handshake plaintext(server_config(), true);
  EXPECT_EQ(plaintext.run({{}, std::nullopt, ServerIdentity::generate().public_key(), true}).failure,
            DisconnectReason::kServerKeyMismatch);
}

TEST(Handshake, AnAlteredSignatureFailsOnlyWhenTheKeyIsPinned) {
  for (const bool pinned : {false, true}) {
    Handshake h;
    h.tamper_answer = [](Bytes& d) {
      if (ch::decode(d) && std::holds_alternative<ch::Accepted>(*ch::decode(d))) d[20] ^= 0x01;  // in the signature
    };
    std::optional<ServerPublicKey> pin;
    if (pinned) pin = server_identity().public_key();
    const auto done = h.run({{}, std::nullopt, pin, false});
    if (pinned) {
      EXPECT_EQ(done.failure, DisconnectReason::kServerKeyMismatch);
    } else {
      expect_encrypted_session(done, h.server);
    }
  }
}

TEST(Handshake, AnAlteredConfirmationFails) {
  Handshake h;
  h.tamper_answer = [](Bytes& d) {
    if (ch::decode(d) && std::holds_alternative<ch::Accepted>(*ch::decode(d))) d.back() ^= 0x80;
  };
  EXPECT_EQ(h.run().failure, DisconnectReason::kServerKeyMismatch);
}

// A token minted with a session key. Until tokens carry it, the server reads
// whatever check_connect_token gives, so the client takes the key from the
// opened token: the same one the server mixes in.
struct MintedToken {
  Bytes bytes;
  TokenKey session_key;
};
MintedToken mint(const TokenKey& token_key) {
  ConnectToken t;
  t.created_unix_seconds = kUnixNow - 10;
  t.expires_unix_seconds = kUnixNow + 60;
  t.servers = {kServerAddress};
  t.client_id = 99;
  t.session_key = TokenKey::generate();
  auto bytes = mint_connect_token(t, token_key);
  EXPECT_TRUE(bytes.ok());
  auto opened = open_connect_token(bytes.value(), token_key);
  EXPECT_TRUE(opened.ok());
  return {bytes.value(), opened.value().session_key};
}

AddressValidationConfig token_config(const TokenKey& token_key) {
  AddressValidationConfig config = server_config();
  config.token_key = token_key;
  config.token_address = kServerAddress;
  return config;
}

TEST(Handshake, WithATokenTheKeysAreMixedWithItsSessionKey) {
  const TokenKey token_key = TokenKey::generate();
  const MintedToken token = mint(token_key);
  Handshake h(token_config(token_key));
  const auto done = h.run({token.bytes, token.session_key, server_identity().public_key(), false});
  expect_encrypted_session(done, h.server);
  const auto admitted = h.server.take(kClient);
  ASSERT_TRUE(admitted && admitted->identity);
  EXPECT_EQ(admitted->identity->client_id, 99u);
  // A client holding the token but not its session key (it saw the token on
  // the wire) ends up with other keys, and the server's confirmation shows it.
  Handshake thief(token_config(token_key));
  TokenKey guessed = token.session_key;
  guessed.bytes[0] ^= 0x01;
  EXPECT_EQ(thief.run({token.bytes, guessed, std::nullopt, false}).failure, DisconnectReason::kServerKeyMismatch);
}

TEST(Handshake, PlaintextOnlyWhereTheServerAllowsIt) {
  Handshake refused;
  EXPECT_EQ(refused.run({{}, std::nullopt, std::nullopt, true}).failure, DisconnectReason::kPlaintextRefused);
  EXPECT_EQ(refused.server.stats().admitted, 0u);
  Handshake allowed(server_config(), true);
  const auto done = allowed.run({{}, std::nullopt, server_identity().public_key(), true});
  ASSERT_FALSE(done.failure.has_value());
  EXPECT_TRUE(done.session.plaintext);
  ASSERT_NE(allowed.server.session_of(kClient), nullptr);
  EXPECT_TRUE(keys_agree(done.session, *allowed.server.session_of(kClient)));
  // A server that allows plaintext still encrypts the clients that did not ask.
  Handshake encrypted(server_config(), true);
  expect_encrypted_session(encrypted.run(), encrypted.server);
}

TEST(Handshake, PlaintextWithATokenStillChecksTheToken) {
  const TokenKey token_key = TokenKey::generate();
  const MintedToken token = mint(token_key);
  Handshake h(token_config(token_key), true);
  const auto done = h.run({token.bytes, token.session_key, std::nullopt, true});
  ASSERT_FALSE(done.failure.has_value());
  EXPECT_TRUE(done.session.plaintext);
  Handshake without(token_config(token_key), true);
  EXPECT_EQ(without.run({{}, std::nullopt, std::nullopt, true}).failure, DisconnectReason::kTokenRequired);
}

ch::Accepted accepted_in(const std::vector<Bytes>& answers) {
  for (const Bytes& d : answers) {
    if (const auto m = ch::decode(d); m && std::holds_alternative<ch::Accepted>(*m)) return std::get<ch::Accepted>(*m);
  }
  ADD_FAILURE() << "no ACCEPTED";
  return {};
}

TEST(Handshake, AesGcmWhenBothEndsHaveItChaChaOtherwise) {
  struct Case {
    AesSupport aes;
    SessionCipher expected;
  };
  const Case cases[] = {
      {{true, true}, SessionCipher::kAes256Gcm},
      {{true, false}, SessionCipher::kChaCha20Poly1305},  // the client has no AES instructions
      {{false, true}, SessionCipher::kChaCha20Poly1305},  // the server has none
      {{false, false}, SessionCipher::kChaCha20Poly1305},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "server aes " << c.aes.server << ", client aes " << c.aes.client);
    Handshake h(server_config(), false, c.aes);
    const auto done = h.run({{}, std::nullopt, server_identity().public_key(), false});
    expect_encrypted_session(done, h.server);
    EXPECT_EQ(done.session.cipher, c.expected);
    EXPECT_EQ(h.server.session_of(kClient)->cipher, c.expected);
    EXPECT_EQ(accepted_in(h.answers).flags, c.expected == SessionCipher::kAes256Gcm ? ch::kFlagAes256Gcm : 0);
  }
}

TEST(Handshake, ThePlaintextBitAndTheCipherBitTravelApart) {
  Handshake h(server_config(), true);
  const auto done = h.run({{}, std::nullopt, server_identity().public_key(), true});
  ASSERT_FALSE(done.failure.has_value());
  EXPECT_TRUE(done.session.plaintext);
  EXPECT_EQ(accepted_in(h.answers).flags, ch::kFlagPlaintext | ch::kFlagAes256Gcm);  // the cipher goes unused
}

// A man in the middle may change the cipher bits on the way; it cannot make
// the two ends disagree unnoticed.
TEST(Handshake, AnAcceptedClaimingAnUnofferedCipherIsAProtocolError) {
  Handshake h(server_config(), false, {true, false});
  h.tamper_answer = [](Bytes& d) {
    auto m = ch::decode(d);
    if (!m || !std::holds_alternative<ch::Accepted>(*m)) return;
    std::get<ch::Accepted>(*m).flags |= ch::kFlagAes256Gcm;
    d = ch::encode(*m);
  };
  EXPECT_EQ(h.run().failure, DisconnectReason::kProtocolError);
}

TEST(Handshake, AChangedCipherChoiceFailsTheConfirmation) {
  // The client offered AES-256-GCM and the server chose it: an ACCEPTED
  // saying ChaCha20-Poly1305 is allowed by the rules but not by the keys.
  Handshake h;
  h.tamper_answer = [](Bytes& d) {
    auto m = ch::decode(d);
    if (!m || !std::holds_alternative<ch::Accepted>(*m)) return;
    std::get<ch::Accepted>(*m).flags &= static_cast<std::uint8_t>(~ch::kFlagAes256Gcm);
    d = ch::encode(*m);
  };
  EXPECT_EQ(h.run().failure, DisconnectReason::kServerKeyMismatch);
}

TEST(Handshake, AStrippedAesOfferFailsOnlyAgainstAPinnedKey) {
  // Taken off both the HELLO and the RESPONSE the cookie still matches and
  // the server chooses ChaCha20-Poly1305, as strong; the signature shows it
  // to a client that pins the server's key.
  for (const bool pinned : {false, true}) {
    Handshake h;
    h.tamper_request = [](Bytes& d) {
      auto m = ch::decode(d);
      if (!m) return;
      if (auto* hello = std::get_if<ch::Hello>(&*m)) hello->flags &= static_cast<std::uint8_t>(~ch::kFlagAes256Gcm);
      if (auto* r = std::get_if<ch::Response>(&*m)) r->flags &= static_cast<std::uint8_t>(~ch::kFlagAes256Gcm);
      d = ch::encode(*m);
    };
    std::optional<ServerPublicKey> pin;
    if (pinned) pin = server_identity().public_key();
    const auto done = h.run({{}, std::nullopt, pin, false});
    if (pinned) {
      EXPECT_EQ(done.failure, DisconnectReason::kServerKeyMismatch);
    } else {
      expect_encrypted_session(done, h.server);
      EXPECT_EQ(done.session.cipher, SessionCipher::kChaCha20Poly1305);
    }
  }
}

TEST(Handshake, AResponseWithAnotherClientKeyOrFlagsFailsTheCookie) {
  const ch::PublicKey mallory = handshake::KxKeyPair::generate().public_key();
  for (const bool swap_key : {true, false}) {
    Handshake h(server_config(), true);
    h.tamper_request = [&](Bytes& d) {
      auto m = ch::decode(d);
      if (!m || !std::holds_alternative<ch::Response>(*m)) return;
      auto& r = std::get<ch::Response>(*m);
      if (swap_key) {
        r.client_key = mallory;
      } else {
        r.flags = ch::kFlagPlaintext;
      }
      d = ch::encode(r);
    };
    h.start({});
    for (int i = 0; i < 4; ++i) {
      h.exchange_once();
      h.now += Duration::millis(250);
      h.client.tick(h.now, h.actions);
    }
    EXPECT_TRUE(h.actions.done.empty());
    EXPECT_EQ(h.server.stats().admitted, 0u);
    EXPECT_GE(h.server.stats().bad_cookies, 3u);
  }
}

TEST(Handshake, AStaleCookieIsIgnoredAndTheClientStartsARoundOver) {
  Handshake h;
  h.start({});
  // The HELLO reaches the server; its CHALLENGE comes back; the RESPONSE is
  // lost until the cookie is past any bucket.
  h.exchange_once();
  ASSERT_EQ(h.actions.send.size(), 1u);
  const Bytes late_response = h.actions.send.front().bytes;
  h.actions.send.clear();
  h.now += Duration::seconds(17);
  EXPECT_FALSE(h.server.handle(late_response, kClient, {h.now, kUnixNow}, {}).has_value());
  EXPECT_EQ(h.server.stats().bad_cookies, 1u);
  // The client asks for a fresh cookie, with a new nonce, and gets in.
  h.client.tick(h.now, h.actions);
  for (int i = 0; i < 3 && h.actions.done.empty(); ++i) h.exchange_once();
  ASSERT_EQ(h.actions.done.size(), 1u);
  expect_encrypted_session(h.actions.done.front(), h.server);
}

TEST(Handshake, ACookieOfThePreviousBucketGivesTheKeysOfItsKeyPair) {
  Handshake h;
  h.start({});
  h.exchange_once();              // HELLO answered in one bucket
  h.now += Duration::seconds(7);  // the RESPONSE arrives in the next
  Bytes hello = ch::encode(ch::Hello{1, 0, handshake::KxKeyPair::generate().public_key()});
  const auto fresh = ch::decode(*h.server.handle(hello, kServer, {h.now, kUnixNow}, {}));
  ASSERT_TRUE(fresh && std::holds_alternative<ch::ChallengeMsg>(*fresh));
  const auto first = ch::decode(h.answers.front());
  // The key pairs rotate with the bucket...
  EXPECT_NE(std::get<ch::ChallengeMsg>(*fresh).server_key, std::get<ch::ChallengeMsg>(*first).server_key);
  // ...and the earlier one still serves the cookies made with it.
  h.exchange_once();
  ASSERT_EQ(h.actions.done.size(), 1u);
  expect_encrypted_session(h.actions.done.front(), h.server);
}

TEST(Handshake, AResentResponseGetsTheSameAcceptedAndKeys) {
  Handshake h;
  h.tamper_answer = [&, dropped = false](Bytes& d) mutable {
    // The first ACCEPTED is lost on the way.
    if (!dropped && std::holds_alternative<ch::Accepted>(*ch::decode(d))) {
      dropped = true;
      d = ch::encode(ch::Accepted{});
    }
  };
  h.start({});
  h.exchange_once();  // HELLO, CHALLENGE
  const Bytes response = h.actions.send.front().bytes;
  h.exchange_once();  // RESPONSE, a lost ACCEPTED (the client ignores the nonce 0 one)
  ASSERT_TRUE(h.actions.done.empty());
  const auto again = h.server.handle(response, kClient, {h.now, kUnixNow}, {});
  h.now += Duration::millis(250);
  h.client.tick(h.now, h.actions);
  h.exchange_once();
  ASSERT_EQ(h.actions.done.size(), 1u);
  expect_encrypted_session(h.actions.done.front(), h.server);
  EXPECT_EQ(h.answers.back(), *again);
  EXPECT_EQ(h.server.stats().admitted, 1u);
}

TEST(Handshake, ConnectionIdsAreNonzeroUniqueAndAvoidLiveOnes) {
  AddressValidationConfig config = server_config();
  config.max_pending = 300;
  config.max_pending_per_host = 300;
  config.max_challenges_per_second = 1000;
  AddressValidator server(config, false);
  // The transport's sessions hold every even id.
  server.set_live_ids([](std::uint32_t id) { return id % 2 == 0; });
  const handshake::KxKeyPair client = handshake::KxKeyPair::generate();
  std::set<std::uint32_t> ids;
  const Time now = Time::from_micros(80'000'000);
  for (std::uint16_t port = 1; port <= 200; ++port) {
    const Endpoint from{kClient.host, port};
    const auto challenge =
        ch::decode(*server.handle(ch::encode(ch::Hello{port, 0, client.public_key()}), from, {now, kUnixNow}, {}));
    const auto& cookie = std::get<ch::ChallengeMsg>(*challenge).cookie;
    const auto reply =
        server.handle(ch::encode(ch::Response{port, cookie, 0, client.public_key(), {}}), from, {now, kUnixNow}, {});
    ASSERT_TRUE(reply.has_value());
    const auto accepted = std::get<ch::Accepted>(*ch::decode(*reply));
    EXPECT_EQ(accepted.connection_id % 2, 1u);
    EXPECT_EQ(server.session_of(from)->connection_id, accepted.connection_id);
    ids.insert(accepted.connection_id);
  }
  EXPECT_EQ(ids.size(), 200u);
}

}  // namespace
}  // namespace tickwire::transport
