// The accepting side of address validation against hostile datagrams: the
// receiver obligations of docs/wire-format.md ("Address validation"), one
// test each, with no sockets and stepped time.

#include <gtest/gtest.h>

#include <random>

#include "address_validator.h"
#include "test_seed.h"
#include "tickwire/transport/connect_challenge.h"

namespace tickwire::transport {
namespace {

namespace ch = challenge;

constexpr Endpoint kAlice{0x0100007F, 40000};  // 127.0.0.1:40000
constexpr Endpoint kAliceOtherPort{0x0100007F, 40001};
constexpr Endpoint kMallory{0x0200007F, 40000};  // 127.0.0.2:40000
constexpr std::int64_t kUnixNow = 1'800'000'000;
const Address kServerAddress{"127.0.0.1", 7777};

struct Harness {
  explicit Harness(AddressValidationConfig config = {}, bool allow_plaintext = false)
      : validator(config, allow_plaintext) {}

  AddressValidator validator;
  Time now = Time::from_micros(1'000'000'000);
  AddressValidator::HostLoad load;
  // The client's key exchange key; a real one, since the server refuses
  // keys that give no shared secret.
  handshake::KxKeyPair client = handshake::KxKeyPair::generate();

  std::optional<ch::Message> send(const std::vector<std::uint8_t>& datagram, Endpoint from) {
    const auto reply = validator.handle(datagram, from, {now, kUnixNow}, load);
    if (!reply) return std::nullopt;
    EXPECT_LT(reply->size(), datagram.size()) << "an answer must be smaller than what it answers";
    auto decoded = ch::decode(*reply);
    EXPECT_TRUE(decoded.has_value());
    return decoded;
  }

  std::optional<ch::Cookie> challenge(Endpoint from, std::uint64_t nonce, std::uint8_t flags = 0) {
    const auto answer = send(ch::encode(ch::Hello{nonce, flags, client.public_key()}), from);
    if (!answer) return std::nullopt;
    const auto* c = std::get_if<ch::ChallengeMsg>(&*answer);
    if (c == nullptr || c->nonce != nonce) return std::nullopt;
    return c->cookie;
  }

  std::optional<ch::Message> respond(Endpoint from, std::uint64_t nonce, const ch::Cookie& cookie,
                                     std::vector<std::uint8_t> token = {}, std::uint8_t flags = 0) {
    return send(ch::encode(ch::Response{nonce, cookie, flags, client.public_key(), std::move(token)}), from);
  }

  // The whole exchange; the answer to the RESPONSE.
  std::optional<ch::Message> join(Endpoint from, std::uint64_t nonce, std::vector<std::uint8_t> token = {}) {
    const auto cookie = challenge(from, nonce);
    if (!cookie) return std::nullopt;
    return respond(from, nonce, *cookie, std::move(token));
  }
};

bool accepted(const std::optional<ch::Message>& m) { return m && std::holds_alternative<ch::Accepted>(*m); }

std::optional<DisconnectReason> denial(const std::optional<ch::Message>& m) {
  if (!m) return std::nullopt;
  const auto* d = std::get_if<ch::Denied>(&*m);
  if (d == nullptr) return std::nullopt;
  return d->reason;
}

TEST(AddressValidation, AHonestExchangeAdmitsTheAddressOnce) {
  Harness h;
  ASSERT_TRUE(accepted(h.join(kAlice, 7)));
  EXPECT_TRUE(h.validator.admitted(kAlice, h.now));
  EXPECT_FALSE(h.validator.admitted(kAliceOtherPort, h.now));
  EXPECT_EQ(h.validator.stats().pending, 1u);
  ASSERT_NE(h.validator.session_of(kAlice), nullptr);
  const auto admitted = h.validator.take(kAlice);
  ASSERT_TRUE(admitted.has_value());
  EXPECT_FALSE(admitted->identity.has_value());  // no token, no identity
  EXPECT_NE(admitted->session.connection_id, 0u);
  EXPECT_FALSE(h.validator.admitted(kAlice, h.now));
  EXPECT_EQ(h.validator.session_of(kAlice), nullptr);
  EXPECT_FALSE(h.validator.take(kAlice).has_value());
  EXPECT_EQ(h.validator.stats().pending, 0u);
}

TEST(AddressValidation, ChallengeReplayedFromAnotherAddressIsIgnored) {
  Harness h;
  const auto cookie = h.challenge(kAlice, 7);
  ASSERT_TRUE(cookie);
  // Mallory saw Alice's challenge on the path and replays it as her own.
  EXPECT_FALSE(h.respond(kMallory, 7, *cookie).has_value());
  EXPECT_FALSE(h.respond(kAliceOtherPort, 7, *cookie).has_value());
  EXPECT_FALSE(h.validator.admitted(kMallory, h.now));
  EXPECT_EQ(h.validator.stats().bad_cookies, 2u);
  // The cookie is bound to the nonce too.
  EXPECT_FALSE(h.respond(kAlice, 8, *cookie).has_value());
  EXPECT_TRUE(accepted(h.respond(kAlice, 7, *cookie)));
}

TEST(AddressValidation, ForgedCookiesAreIgnoredSilently) {
  std::mt19937_64 rng(testing::test_seed("ForgedCookiesAreIgnoredSilently"));
  Harness h;
  for (int i = 0; i < 1000; ++i) {
    ch::Cookie cookie{};
    for (auto& b : cookie) b = static_cast<std::uint8_t>(rng());
    EXPECT_FALSE(h.respond(kMallory, rng(), cookie).has_value());
  }
  EXPECT_EQ(h.validator.stats().bad_cookies, 1000u);
  EXPECT_EQ(h.validator.stats().unvalidated_bytes_out, 0u);
}

TEST(AddressValidation, CookiesGoStale) {
  Harness h;
  const auto cookie = h.challenge(kAlice, 7);
  ASSERT_TRUE(cookie);
  h.now += Duration::seconds(7);
  EXPECT_TRUE(accepted(h.respond(kAlice, 7, *cookie)));
  ASSERT_TRUE(h.validator.take(kAlice).has_value());
  h.now += Duration::seconds(10);  // 17 s after the challenge: past any bucket
  EXPECT_FALSE(h.respond(kAlice, 7, *cookie).has_value());
}

TEST(AddressValidation, HellosMustBePaddedAndWellFormed) {
  Harness h;
  auto hello = ch::encode(ch::Hello{1});
  auto short_hello = hello;
  short_hello.pop_back();
  EXPECT_FALSE(h.send(short_hello, kAlice).has_value());
  auto long_hello = hello;
  long_hello.push_back(0);
  EXPECT_FALSE(h.send(long_hello, kAlice).has_value());
  auto dirty_padding = hello;
  dirty_padding.back() = 1;
  EXPECT_FALSE(h.send(dirty_padding, kAlice).has_value());
  auto unknown_flag = hello;
  unknown_flag[ch::kPrefixSize + ch::kNonceSize] = 0x04;
  EXPECT_FALSE(h.send(unknown_flag, kAlice).has_value());
  EXPECT_EQ(h.validator.stats().malformed, 4u);
  EXPECT_EQ(h.validator.stats().challenges_sent, 0u);
}

TEST(AddressValidation, EveryLengthWithTheMagicIsHandledAndNeverAmplified) {
  std::mt19937_64 rng(testing::test_seed("EveryLengthWithTheMagicIsHandledAndNeverAmplified"));
  Harness h;
  for (std::size_t length = 0; length <= ch::kMaxDatagramSize + 64; ++length) {
    for (int kind = 0; kind < 8; ++kind) {
      std::vector<std::uint8_t> d(length);
      for (auto& b : d) b = static_cast<std::uint8_t>(rng());
      for (std::size_t i = 0; i < std::min(length, ch::kMagic.size()); ++i) d[i] = ch::kMagic[i];
      if (length > 3) d[3] = ch::kVersion;
      if (length > 4) d[4] = static_cast<std::uint8_t>(kind);
      (void)h.send(d, kMallory);
    }
  }
  const ValidationStats& s = h.validator.stats();
  EXPECT_LE(s.unvalidated_bytes_out, s.unvalidated_bytes_in);
  EXPECT_EQ(s.admitted, 0u);
}

TEST(AddressValidation, AnswersMeantForClientsAreNotAnswered) {
  Harness h;
  EXPECT_FALSE(h.send(ch::encode(ch::ChallengeMsg{1, {}}), kMallory).has_value());
  EXPECT_FALSE(h.send(ch::encode(ch::Accepted{1}), kMallory).has_value());
  EXPECT_FALSE(h.send(ch::encode(ch::Denied{1, DisconnectReason::kServerFull}), kMallory).has_value());
}

TEST(AddressValidation, AnotherVersionLearnsWhy) {
  Harness h;
  const auto answer = h.send(ch::encode(ch::ForeignHello{5, 9}), kAlice);
  EXPECT_EQ(denial(answer), DisconnectReason::kVersionMismatch);
}

TEST(AddressValidation, PendingConnectsAreCappedPerHostAndInAllAndWaitForAPlace) {
  AddressValidationConfig config;
  config.max_pending_per_host = 2;
  config.max_pending = 3;
  Harness h(config);
  EXPECT_TRUE(accepted(h.join({0x0100007F, 1}, 1)));
  EXPECT_TRUE(accepted(h.join({0x0100007F, 2}, 2)));
  // Over a limit there is no answer; the client resends its RESPONSE.
  const auto cookie = h.challenge({0x0100007F, 3}, 3);
  ASSERT_TRUE(cookie);
  EXPECT_FALSE(h.respond({0x0100007F, 3}, 3, *cookie).has_value());
  EXPECT_TRUE(accepted(h.join({0x0200007F, 1}, 4)));
  EXPECT_FALSE(h.join({0x0300007F, 1}, 5).has_value());
  EXPECT_EQ(h.validator.stats().pending_full, 2u);
  // A connect completing frees its place, and the resent RESPONSE gets in.
  (void)h.validator.take({0x0100007F, 1});
  EXPECT_TRUE(accepted(h.respond({0x0100007F, 3}, 3, *cookie)));
  EXPECT_EQ(h.validator.stats().pending_peak, 3u);
}

TEST(AddressValidation, PeersPerHostCountTogetherWithPending) {
  Harness h;
  h.load.max_peers_per_host = 4;
  h.load.peers_from_host = 3;
  EXPECT_TRUE(accepted(h.join({0x0100007F, 1}, 1)));
  EXPECT_EQ(denial(h.join({0x0100007F, 2}, 2)), DisconnectReason::kTooManyConnections);
}

TEST(AddressValidation, AFullServerSaysSoBeforeEnetWouldIgnoreTheConnect) {
  Harness h;
  h.load.free_slots = 1;
  EXPECT_TRUE(accepted(h.join({0x0100007F, 1}, 1)));
  EXPECT_EQ(denial(h.join({0x0200007F, 1}, 2)), DisconnectReason::kServerFull);
}

TEST(AddressValidation, AnAdmissionNotUsedRunsOut) {
  AddressValidationConfig config;
  config.admission_lifetime = Duration::seconds(2);
  config.max_pending_per_host = 1;
  Harness h(config);
  ASSERT_TRUE(accepted(h.join(kAlice, 1)));
  h.now += Duration::seconds(3);
  EXPECT_FALSE(h.validator.admitted(kAlice, h.now));
  h.validator.expire(h.now, kUnixNow);
  EXPECT_EQ(h.validator.stats().pending, 0u);
  EXPECT_TRUE(accepted(h.join(kAliceOtherPort, 2)));  // the host's place is free again
}

TEST(AddressValidation, AResentResponseIsAcceptedAgain) {
  Harness h;
  const auto cookie = h.challenge(kAlice, 1);
  ASSERT_TRUE(cookie);
  const auto first = h.respond(kAlice, 1, *cookie);
  ASSERT_TRUE(accepted(first));
  const auto again = h.respond(kAlice, 1, *cookie);
  ASSERT_TRUE(accepted(again));
  // The same answer: the same connection id and keys, so whichever copy
  // arrives, client and server agree.
  EXPECT_EQ(ch::encode(*first), ch::encode(*again));
  EXPECT_EQ(h.validator.stats().admitted, 1u);
  EXPECT_EQ(h.validator.stats().pending, 1u);
}

TEST(AddressValidation, ANewExchangeFromAnAdmittedAddressReplacesItsAdmission) {
  Harness h;
  const auto first = h.join(kAlice, 1);
  ASSERT_TRUE(accepted(first));
  // The client started over (a new nonce, after a fresh cookie): the old
  // session is dropped for the new one, which has its own id and keys.
  const auto second = h.join(kAlice, 2);
  ASSERT_TRUE(accepted(second));
  const std::uint32_t id = std::get<ch::Accepted>(*second).connection_id;
  EXPECT_NE(id, std::get<ch::Accepted>(*first).connection_id);
  ASSERT_NE(h.validator.session_of(kAlice), nullptr);
  EXPECT_EQ(h.validator.session_of(kAlice)->connection_id, id);
  EXPECT_EQ(h.validator.stats().pending, 1u);
}

TEST(AddressValidation, AFloodOfHellosIsAnsweredOnlyWithinBudget) {
  AddressValidationConfig config;
  config.max_challenges_per_second = 5;
  Harness h(config);
  int answered = 0;
  for (int i = 0; i < 20; ++i) answered += h.challenge(kMallory, static_cast<std::uint64_t>(i)) ? 1 : 0;
  EXPECT_EQ(answered, 5);
  EXPECT_EQ(h.validator.stats().challenges_over_budget, 15u);
  h.now += Duration::seconds(1);
  EXPECT_TRUE(h.challenge(kAlice, 99).has_value());
}

TEST(AddressValidation, ConnectsDroppedBeforeEnetAreCounted) {
  Harness h;
  h.validator.count_dropped_connect(52);
  EXPECT_EQ(h.validator.stats().connects_dropped, 1u);
  EXPECT_EQ(h.validator.stats().unvalidated_bytes_in, 52u);
}

// Connect tokens, checked while the address is validated.

struct TokenHarness : Harness {
  static AddressValidationConfig with_tokens(const TokenKey& key) {
    AddressValidationConfig config;
    config.token_key = key;
    config.token_address = kServerAddress;
    return config;
  }
  TokenHarness() : Harness(with_tokens(key_for_tests())) {}

  static const TokenKey& key_for_tests() {
    static const TokenKey key = TokenKey::generate();
    return key;
  }

  static std::vector<std::uint8_t> mint(std::int64_t expires, const TokenKey& key = key_for_tests(),
                                        Address server = kServerAddress) {
    ConnectToken t;
    t.created_unix_seconds = kUnixNow - 10;
    t.expires_unix_seconds = expires;
    t.servers = {server};
    t.client_id = 4242;
    t.session_key = TokenKey::generate();
    t.user_data = {1, 2, 3};
    auto bytes = mint_connect_token(t, key);
    EXPECT_TRUE(bytes.ok());
    return bytes.ok() ? bytes.value() : std::vector<std::uint8_t>{};
  }
};

TEST(ConnectTokens, AValidTokenAdmitsWithItsIdentity) {
  TokenHarness h;
  ASSERT_TRUE(accepted(h.join(kAlice, 1, TokenHarness::mint(kUnixNow + 30))));
  const auto admitted = h.validator.take(kAlice);
  ASSERT_TRUE(admitted.has_value() && admitted->identity.has_value());
  EXPECT_EQ(admitted->identity->client_id, 4242u);
  EXPECT_EQ(admitted->identity->user_data, (std::vector<std::uint8_t>{1, 2, 3}));
}

TEST(ConnectTokens, EachBadTokenIsDeniedWithItsReason) {
  TokenHarness h;
  EXPECT_EQ(denial(h.join(kAlice, 1)), DisconnectReason::kTokenRequired);
  EXPECT_EQ(denial(h.join(kAlice, 2, TokenHarness::mint(kUnixNow - 1))), DisconnectReason::kTokenExpired);
  EXPECT_EQ(denial(h.join(kAlice, 3, TokenHarness::mint(kUnixNow + 30, TokenKey::generate()))),
            DisconnectReason::kTokenInvalid);
  EXPECT_EQ(
      denial(h.join(kAlice, 4,
                    TokenHarness::mint(kUnixNow + 30, TokenHarness::key_for_tests(), Address{"127.0.0.1", 7778}))),
      DisconnectReason::kTokenInvalid);
  auto tampered = TokenHarness::mint(kUnixNow + 30);
  tampered.back() ^= 0x01;
  EXPECT_EQ(denial(h.join(kAlice, 5, tampered)), DisconnectReason::kTokenInvalid);
  EXPECT_EQ(denial(h.join(kAlice, 6, {1, 2, 3})), DisconnectReason::kTokenInvalid);
  EXPECT_EQ(h.validator.stats().admitted, 0u);
}

TEST(ConnectTokens, ATokenUsedFromASecondAddressIsRefused) {
  TokenHarness h;
  const auto token = TokenHarness::mint(kUnixNow + 30);
  ASSERT_TRUE(accepted(h.join(kAlice, 1, token)));
  EXPECT_EQ(denial(h.join(kMallory, 2, token)), DisconnectReason::kTokenReused);
  EXPECT_EQ(denial(h.join(kAliceOtherPort, 3, token)), DisconnectReason::kTokenReused);
  // The rightful holder may reconnect with it from its own address.
  (void)h.validator.take(kAlice);
  EXPECT_TRUE(accepted(h.join(kAlice, 4, token)));
}

TEST(ConnectTokens, ATokenReplayedAfterItExpiredIsRefused) {
  TokenHarness h;
  const auto token = TokenHarness::mint(kUnixNow + 1);
  ASSERT_TRUE(accepted(h.join(kAlice, 1, token)));
  (void)h.validator.take(kAlice);
  const auto later =
      h.validator.handle(ch::encode(ch::Hello{2, 0, h.client.public_key()}), kAlice, {h.now, kUnixNow + 5}, {});
  ASSERT_TRUE(later.has_value());
  const auto decoded = ch::decode(*later);
  ASSERT_TRUE(decoded.has_value());
  const auto* c = std::get_if<ch::ChallengeMsg>(&*decoded);
  ASSERT_NE(c, nullptr);
  const auto answer = h.validator.handle(ch::encode(ch::Response{2, c->cookie, 0, h.client.public_key(), token}),
                                         kAlice, {h.now, kUnixNow + 5}, {});
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(denial(ch::decode(*answer)), DisconnectReason::kTokenExpired);
}

}  // namespace
}  // namespace tickwire::transport
