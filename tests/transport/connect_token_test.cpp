#include "tickwire/transport/connect_token.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tickwire/transport/connect_challenge.h"

namespace tickwire::transport {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::int64_t kNow = 1'700'000'000;
// Offsets from docs/connect-tokens.md, used to alter chosen bytes.
constexpr std::size_t kExpiresOffset = 16;
constexpr std::size_t kNonceOffset = 24;
constexpr std::size_t kCountOffset = 48;
constexpr std::size_t kServersOffset = 49;

const Address kServer{"10.0.0.7", 7777};
const Address kOtherServer{"192.168.1.20", 40000};

TokenKey fixed_key(std::uint8_t seed) {
  TokenKey key;
  for (std::size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<std::uint8_t>(seed + i);
  return key;
}

ConnectToken sample_token() {
  ConnectToken token;
  token.created_unix_seconds = kNow - 5;
  token.expires_unix_seconds = kNow + 30;
  token.servers = {kOtherServer, kServer};
  token.client_id = 0x0123456789ABCDEFULL;
  token.session_key = fixed_key(50);
  token.user_data = {'r', 'e', 'g', 'i', 'o', 'n', '=', 'e', 'u'};
  return token;
}

Bytes mint_ok(const ConnectToken& token, const TokenKey& key) {
  auto minted = mint_connect_token(token, key);
  EXPECT_TRUE(minted.ok()) << (minted.ok() ? "" : minted.error().detail);
  return minted.ok() ? minted.value() : Bytes{};
}

TokenStatus status_of(const Bytes& bytes, const TokenKey& key = fixed_key(1), std::int64_t now = kNow,
                      const Address& server = kServer) {
  return check_connect_token(bytes, key, now, server).status;
}

// A token built byte by byte from docs/connect-tokens.md, sealed with
// libsodium directly, as a backend in another language would build it.
// `length_field`, `padding` and an all-zero `session_key` allow authentic
// tokens no minter of ours makes.
void put_le(Bytes& out, std::uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

Bytes hand_made_token(const TokenKey& key, std::uint16_t length_field, std::uint8_t padding,
                      const TokenKey& session_key = fixed_key(90)) {
  Bytes out{'T', 'W', 'T', 'O', 'K', 'E', 'N', '2'};
  put_le(out, static_cast<std::uint64_t>(kNow - 1), 8);
  put_le(out, static_cast<std::uint64_t>(kNow + 60), 8);
  for (std::uint8_t i = 0; i < 24; ++i) out.push_back(static_cast<std::uint8_t>(i * 7));
  out.insert(out.end(), {1, 10, 0, 0, 7});  // one server: 10.0.0.7
  put_le(out, 7777, 2);

  Bytes plain;
  put_le(plain, 99, 8);
  plain.insert(plain.end(), session_key.bytes.begin(), session_key.bytes.end());
  put_le(plain, length_field, 2);
  for (std::size_t i = 0; i < kMaxTokenUserData; ++i) plain.push_back(i < 3 ? 0x11 : padding);

  const std::size_t ad_size = out.size();
  out.resize(ad_size + plain.size() + crypto_aead_xchacha20poly1305_ietf_ABYTES);
  unsigned long long sealed = 0;
  EXPECT_EQ(sodium_init() >= 0, true);
  crypto_aead_xchacha20poly1305_ietf_encrypt(out.data() + ad_size, &sealed, plain.data(), plain.size(), out.data(),
                                             ad_size, nullptr, out.data() + kNonceOffset, key.bytes.data());
  EXPECT_EQ(sealed, plain.size() + 16);
  EXPECT_EQ(plain.size(), 298U);
  return out;
}

TEST(ConnectTokenTest, MatchesTheDocumentedLayout) {
  const Bytes bytes = hand_made_token(fixed_key(1), 3, 0);
  EXPECT_EQ(bytes.size(), 369U);
  const TokenCheck check = check_connect_token(bytes, fixed_key(1), kNow, kServer);
  ASSERT_EQ(check.status, TokenStatus::kOk);
  EXPECT_EQ(check.token.created_unix_seconds, kNow - 1);
  EXPECT_EQ(check.token.expires_unix_seconds, kNow + 60);
  EXPECT_EQ(check.token.servers, std::vector<Address>{kServer});
  EXPECT_EQ(check.token.client_id, 99U);
  EXPECT_EQ(check.token.session_key.bytes, fixed_key(90).bytes);
  EXPECT_EQ(check.token.user_data, (Bytes{0x11, 0x11, 0x11}));
  Bytes digest(16);
  crypto_generichash(digest.data(), digest.size(), bytes.data(), bytes.size(), nullptr, 0);
  EXPECT_EQ(Bytes(check.fingerprint.begin(), check.fingerprint.end()), digest);
}

TEST(ConnectTokenTest, AuthenticButMalformedPrivatePart) {
  // A user data length over 256, non-zero padding and an all-zero session
  // key: all open under the key, and all are refused.
  for (const Bytes& bytes : {hand_made_token(fixed_key(1), 257, 0), hand_made_token(fixed_key(1), 0xFFFF, 0),
                             hand_made_token(fixed_key(1), 3, 1), hand_made_token(fixed_key(1), 3, 0, TokenKey{})}) {
    const TokenCheck check = check_connect_token(bytes, fixed_key(1), kNow, kServer);
    EXPECT_EQ(check.status, TokenStatus::kMalformed);
    EXPECT_EQ(check.token.client_id, 0U);
    EXPECT_EQ(check.token.session_key.bytes, TokenKey{}.bytes);
    EXPECT_FALSE(open_connect_token(bytes, fixed_key(1)).ok());
    EXPECT_TRUE(read_token_public(bytes).ok());
  }
  EXPECT_EQ(status_of(hand_made_token(fixed_key(1), 256, 0x11)), TokenStatus::kOk);
}

TEST(ConnectTokenTest, RoundTrip) {
  const ConnectToken token = sample_token();
  const Bytes bytes = mint_ok(token, fixed_key(1));
  const TokenCheck check = check_connect_token(bytes, fixed_key(1), kNow, kServer);
  ASSERT_EQ(check.status, TokenStatus::kOk);
  EXPECT_EQ(check.token.created_unix_seconds, token.created_unix_seconds);
  EXPECT_EQ(check.token.expires_unix_seconds, token.expires_unix_seconds);
  EXPECT_EQ(check.token.servers, token.servers);
  EXPECT_EQ(check.token.client_id, token.client_id);
  EXPECT_EQ(check.token.session_key.bytes, token.session_key.bytes);
  EXPECT_EQ(check.token.user_data, token.user_data);
  EXPECT_EQ(check.fingerprint, connect_token_fingerprint(bytes));
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "TWTOKEN2");
}

TEST(ConnectTokenTest, PublicPartReadsWithoutKey) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  auto pub = read_token_public(bytes);
  ASSERT_TRUE(pub.ok()) << pub.error().detail;
  EXPECT_EQ(pub->servers, sample_token().servers);
  EXPECT_EQ(pub->expires_unix_seconds, kNow + 30);
  EXPECT_EQ(pub->client_id, 0U);
  EXPECT_EQ(pub->session_key.bytes, TokenKey{}.bytes);
  EXPECT_TRUE(pub->user_data.empty());
}

TEST(ConnectTokenTest, LengthDependsOnServerCountOnly) {
  ConnectToken token = sample_token();
  token.servers = {kServer};
  token.user_data.clear();
  const std::size_t one_server = mint_ok(token, fixed_key(1)).size();
  token.user_data.assign(kMaxTokenUserData, 0xAB);
  EXPECT_EQ(mint_ok(token, fixed_key(1)).size(), one_server);
  EXPECT_EQ(one_server, 369U);

  token.servers.assign(kMaxTokenServers, kServer);
  const Bytes largest = mint_ok(token, fixed_key(1));
  EXPECT_EQ(largest.size(), max_connect_token_size());
  EXPECT_LE(max_connect_token_size(), challenge::kMaxTokenSize);
}

TEST(ConnectTokenTest, EveryMintHasItsOwnNonceAndFingerprint) {
  const Bytes a = mint_ok(sample_token(), fixed_key(1));
  const Bytes b = mint_ok(sample_token(), fixed_key(1));
  EXPECT_NE(Bytes(a.begin() + kNonceOffset, a.begin() + kNonceOffset + 24),
            Bytes(b.begin() + kNonceOffset, b.begin() + kNonceOffset + 24));
  EXPECT_NE(connect_token_fingerprint(a), connect_token_fingerprint(b));
  EXPECT_EQ(connect_token_fingerprint(a), connect_token_fingerprint(Bytes(a)));
}

TEST(ConnectTokenTest, ExpiredAtAndAfterExpiry) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow + 29), TokenStatus::kOk);
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow + 30), TokenStatus::kExpired);
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow + 100000), TokenStatus::kExpired);
}

TEST(ConnectTokenTest, WrongKeyIsInvalid) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  const TokenCheck check = check_connect_token(bytes, fixed_key(2), kNow, kServer);
  EXPECT_EQ(check.status, TokenStatus::kInvalid);
  EXPECT_EQ(check.token.client_id, 0U);
  EXPECT_EQ(check.token.session_key.bytes, TokenKey{}.bytes);
  EXPECT_FALSE(open_connect_token(bytes, fixed_key(2)).ok());
}

TEST(ConnectTokenTest, EveryTamperedByteIsRejected) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    Bytes altered = bytes;
    altered[i] ^= 0x01;
    const TokenStatus status = status_of(altered);
    // The version, the count and a port of zero fail the shape check;
    // everything else, public or private, fails authentication.
    EXPECT_TRUE(status == TokenStatus::kInvalid || status == TokenStatus::kMalformed) << "byte " << i;
    if (i >= kNonceOffset && i != kCountOffset) {
      EXPECT_EQ(status, TokenStatus::kInvalid) << "byte " << i;
    }
  }
}

TEST(ConnectTokenTest, TamperedPublicExpiryIsInvalid) {
  Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  bytes[kExpiresOffset + 2] ^= 0x10;  // a later expiry, were it believed
  EXPECT_EQ(status_of(bytes), TokenStatus::kInvalid);
}

TEST(ConnectTokenTest, TamperedCiphertextIsInvalid) {
  Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  bytes[kServersOffset + 2 * 6 + 3] ^= 0x80;  // inside the client id
  EXPECT_EQ(status_of(bytes), TokenStatus::kInvalid);
  bytes = mint_ok(sample_token(), fixed_key(1));
  bytes.back() ^= 0x01;  // the tag
  EXPECT_EQ(status_of(bytes), TokenStatus::kInvalid);
}

TEST(ConnectTokenTest, WrongServer) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow, kOtherServer), TokenStatus::kOk);
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow, Address{"10.0.0.7", 7778}), TokenStatus::kWrongServer);
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow, Address{"10.0.0.8", 7777}), TokenStatus::kWrongServer);
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow, Address{"localhost", 7777}), TokenStatus::kWrongServer);
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow, Address{"010.0.0.7", 7777}), TokenStatus::kWrongServer);
  const TokenCheck check = check_connect_token(bytes, fixed_key(1), kNow, Address{"10.0.0.9", 7777});
  EXPECT_EQ(check.status, TokenStatus::kWrongServer);
  EXPECT_EQ(check.fingerprint, connect_token_fingerprint(bytes));
}

TEST(ConnectTokenTest, ExpiryIsCheckedBeforeServer) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow + 60, Address{"1.1.1.1", 1}), TokenStatus::kExpired);
}

TEST(ConnectTokenTest, EveryTruncationIsMalformed) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const Bytes cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
    const TokenCheck check = check_connect_token(cut, fixed_key(1), kNow, kServer);
    EXPECT_EQ(check.status, TokenStatus::kMalformed) << "size " << size;
    EXPECT_EQ(check.fingerprint, (std::array<std::uint8_t, 16>{})) << "size " << size;
    EXPECT_FALSE(read_token_public(cut).ok()) << "size " << size;
  }
  Bytes longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(status_of(longer), TokenStatus::kMalformed);
  EXPECT_EQ(status_of(bytes), TokenStatus::kOk);
}

TEST(ConnectTokenTest, BadShapesAreMalformed) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  Bytes version = bytes;
  version[7] = '3';
  EXPECT_EQ(status_of(version), TokenStatus::kMalformed);
  EXPECT_FALSE(read_token_public(version).ok());
  for (const std::uint8_t count : {std::uint8_t{0}, std::uint8_t{9}, std::uint8_t{255}}) {
    Bytes altered = bytes;
    altered[kCountOffset] = count;
    EXPECT_EQ(status_of(altered), TokenStatus::kMalformed) << int{count};
  }
  Bytes zero_port = bytes;
  zero_port[kServersOffset + 4] = 0;
  zero_port[kServersOffset + 5] = 0;
  EXPECT_EQ(status_of(zero_port), TokenStatus::kMalformed);
  Bytes far_future = bytes;
  far_future[kExpiresOffset + 7] = 0x80;  // beyond what an int64 holds
  EXPECT_EQ(status_of(far_future), TokenStatus::kMalformed);
}

TEST(ConnectTokenTest, GarbageIsMalformed) {
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    Bytes garbage(static_cast<std::size_t>(rng() % 1100));
    for (auto& b : garbage) b = static_cast<std::uint8_t>(rng());
    EXPECT_EQ(status_of(garbage), TokenStatus::kMalformed);
  }
  Bytes same_size(mint_ok(sample_token(), fixed_key(1)).size(), 0xEE);
  EXPECT_EQ(status_of(same_size), TokenStatus::kMalformed);
  // The right header over random bytes: shaped like a token, opens under nothing.
  Bytes shaped = mint_ok(sample_token(), fixed_key(1));
  for (std::size_t i = kServersOffset + 12; i < shaped.size(); ++i) shaped[i] = static_cast<std::uint8_t>(rng());
  EXPECT_EQ(status_of(shaped), TokenStatus::kInvalid);
}

TEST(ConnectTokenTest, MintRejectsBadArguments) {
  const auto expect_invalid = [](const ConnectToken& token, const char* what) {
    auto minted = mint_connect_token(token, fixed_key(1));
    ASSERT_FALSE(minted.ok()) << what;
    EXPECT_EQ(minted.error().code, ErrorCode::kInvalidArgument) << what;
    EXPECT_FALSE(minted.error().detail.empty()) << what;
  };
  ConnectToken t = sample_token();
  t.servers.clear();
  expect_invalid(t, "no servers");
  t.servers.assign(kMaxTokenServers + 1, kServer);
  expect_invalid(t, "nine servers");
  for (const char* host :
       {"localhost", "::1", "10.0.0", "10.0.0.256", "10.0.0.07", "1.2.3.4.5", "", "1..2.3", "1.2.3.-4", " 1.2.3.4"}) {
    t = sample_token();
    t.servers = {Address{host, 7777}};
    expect_invalid(t, host);
  }
  t = sample_token();
  t.servers = {Address{"10.0.0.7", 0}};
  expect_invalid(t, "port 0");
  t = sample_token();
  t.user_data.assign(kMaxTokenUserData + 1, 1);
  expect_invalid(t, "user data over the limit");
  t = sample_token();
  t.expires_unix_seconds = t.created_unix_seconds;
  expect_invalid(t, "expiry equal to creation");
  t.expires_unix_seconds = t.created_unix_seconds - 1;
  expect_invalid(t, "expiry before creation");
  t = sample_token();
  t.created_unix_seconds = -1;
  expect_invalid(t, "created before 1970");
  t = sample_token();
  t.session_key = TokenKey{};
  expect_invalid(t, "no session key");
  const auto unkeyed = mint_connect_token(t, fixed_key(1));
  ASSERT_FALSE(unkeyed.ok());
  EXPECT_NE(unkeyed.error().detail.find("TokenKey::generate()"), std::string::npos) << unkeyed.error().detail;
}

TEST(ConnectTokenTest, TheVersionBeforeSessionKeysIsRefusedByName) {
  // A TWTOKEN1 token of one server, as the previous format laid it out
  // (331 + 6 bytes): refused for its version before anything else is read.
  Bytes old{'T', 'W', 'T', 'O', 'K', 'E', 'N', '1'};
  old.resize(337, 0);
  old[kCountOffset] = 1;
  EXPECT_EQ(status_of(old), TokenStatus::kMalformed);
  auto read = read_token_public(old);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, ErrorCode::kBadVersion);
  EXPECT_NE(read.error().detail.find("TWTOKEN1"), std::string::npos) << read.error().detail;
  EXPECT_NE(read.error().detail.find("session key"), std::string::npos) << read.error().detail;
  auto opened = open_connect_token(old, fixed_key(1));
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().detail.find("TWTOKEN1"), std::string::npos) << opened.error().detail;
}

TEST(ConnectTokenTest, MintAcceptsTheLimits) {
  ConnectToken t = sample_token();
  t.servers = {Address{"0.0.0.0", 1}, Address{"255.255.255.255", 65535}};
  t.user_data.assign(kMaxTokenUserData, 0xFF);
  t.client_id = UINT64_MAX;
  t.session_key.bytes.fill(0xFF);
  const Bytes bytes = mint_ok(t, fixed_key(3));
  const TokenCheck check = check_connect_token(bytes, fixed_key(3), kNow, Address{"255.255.255.255", 65535});
  ASSERT_EQ(check.status, TokenStatus::kOk);
  EXPECT_EQ(check.token.servers, t.servers);
  EXPECT_EQ(check.token.user_data, t.user_data);
  EXPECT_EQ(check.token.client_id, UINT64_MAX);
  EXPECT_EQ(check.token.session_key.bytes, t.session_key.bytes);
}

TEST(ConnectTokenTest, OpenShowsARejectedTokensContents) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  auto opened = open_connect_token(bytes, fixed_key(1));
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened->client_id, sample_token().client_id);
  EXPECT_EQ(opened->session_key.bytes, sample_token().session_key.bytes);
  EXPECT_EQ(status_of(bytes, fixed_key(1), kNow + 3600), TokenStatus::kExpired);
}

TEST(TokenKeyTest, HexRoundTrip) {
  const TokenKey key = TokenKey::generate();
  const std::string hex = key.to_hex();
  EXPECT_EQ(hex.size(), 64U);
  auto parsed = TokenKey::from_hex(hex);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->bytes, key.bytes);
  EXPECT_NE(TokenKey::generate().bytes, key.bytes);
}

TEST(TokenKeyTest, HexParsing) {
  const std::string digits = "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F";
  auto parsed = TokenKey::from_hex("  " + digits + "\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().detail;
  for (std::size_t i = 0; i < kTokenKeySize; ++i) EXPECT_EQ(parsed->bytes[i], i);
  EXPECT_EQ(parsed->to_hex(), "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

  for (const std::string& bad : {std::string(), digits.substr(1), digits + "0", digits.substr(0, 62) + "0g",
                                 digits.substr(0, 31) + " " + digits.substr(32), "0x" + digits.substr(2)}) {
    auto result = TokenKey::from_hex(bad);
    ASSERT_FALSE(result.ok()) << "'" << bad << "'";
    EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(result.error().detail.find("64 hexadecimal digits"), std::string::npos) << result.error().detail;
  }
}

TEST(ClientTokenTest, TheTwoLinesMintWritesParse) {
  const Bytes bytes = mint_ok(sample_token(), fixed_key(1));
  const std::string text = to_hex(bytes) + "\n" + sample_token().session_key.to_hex() + "\n";
  auto parsed = parse_client_token(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().detail;
  EXPECT_EQ(parsed->token, bytes);
  EXPECT_EQ(parsed->session_key.bytes, sample_token().session_key.bytes);
  auto spaced = parse_client_token("  " + to_hex(bytes) + " \r\n\t" + sample_token().session_key.to_hex());
  ASSERT_TRUE(spaced.ok()) << spaced.error().detail;
  EXPECT_EQ(spaced->token, bytes);
}

TEST(ClientTokenTest, BadTextSaysWhichLineAndWhy) {
  const std::string token = to_hex(mint_ok(sample_token(), fixed_key(1)));
  const std::string key = fixed_key(9).to_hex();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {token, "got one line"},
      {"", "got one line"},
      {token + "\n" + key + "\n" + key, "got more"},
      {token + "0\n" + key, "odd number"},
      {"zz" + token + "\n" + key, "character 1 is not a hexadecimal digit"},
      {std::string(2 * (max_connect_token_size() + 1), 'a') + "\n" + key, "no token is over"},
      {token + "\n" + key.substr(2), "64 hexadecimal digits"},
      {token + "\n" + std::string(64, '0'), "all zeros"},
  };
  for (const auto& [text, why] : cases) {
    auto parsed = parse_client_token(text);
    ASSERT_FALSE(parsed.ok()) << why;
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument) << why;
    EXPECT_NE(parsed.error().detail.find(why), std::string::npos) << parsed.error().detail;
  }
  auto missing = load_client_token("/nonexistent/token.hex");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().detail.find("/nonexistent/token.hex: cannot be read"), std::string::npos)
      << missing.error().detail;
}

TEST(TokenStatusTest, Names) {
  EXPECT_STREQ(to_string(TokenStatus::kOk), "ok");
  EXPECT_STREQ(to_string(TokenStatus::kMalformed), "malformed");
  EXPECT_STREQ(to_string(TokenStatus::kInvalid), "invalid");
  EXPECT_STREQ(to_string(TokenStatus::kExpired), "expired");
  EXPECT_STREQ(to_string(TokenStatus::kWrongServer), "wrong server");
}

// Random damage to a real token: flips, overwrites, cuts, insertions and
// extensions, several at a time. Nothing may crash, and nothing damaged may
// be accepted. The seed is printed; TICKWIRE_TOKEN_SEED=N replays a run.
TEST(ConnectTokenTest, RandomMutationsNeverCrash) {
  const char* fixed = std::getenv("TICKWIRE_TOKEN_SEED");
  const auto seed = fixed != nullptr ? static_cast<std::uint32_t>(std::strtoul(fixed, nullptr, 10))
                                     : static_cast<std::uint32_t>(std::random_device{}());
  std::printf("connect token mutation seed: %u\n", seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const Bytes original = mint_ok(sample_token(), fixed_key(1));
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    Bytes bytes = original;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = bytes.empty() ? 0 : rng() % bytes.size();
      switch (rng() % 5) {
        case 0:
          if (!bytes.empty()) bytes[at] ^= static_cast<std::uint8_t>(1U << (rng() % 8));
          break;
        case 1:
          if (!bytes.empty()) bytes[at] = static_cast<std::uint8_t>(rng());
          break;
        case 2: bytes.resize(at); break;
        case 3: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng())); break;
        default: bytes.resize(bytes.size() + rng() % 64, static_cast<std::uint8_t>(rng())); break;
      }
    }
    const TokenCheck check = check_connect_token(bytes, fixed_key(1), kNow, kServer);
    static_cast<void>(read_token_public(bytes));
    if (check.status == TokenStatus::kOk) {
      ++accepted;
      EXPECT_EQ(bytes, original) << "a damaged token was accepted";
    }
  }
  // Some mutations undo themselves (a byte set to its own value); the rest fail.
  EXPECT_LT(accepted, 20000);
}

}  // namespace
}  // namespace tickwire::transport
