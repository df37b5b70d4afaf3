#include "tickwire/transport/connect_token.h"

#include <sodium.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include "tickwire/transport/connect_challenge.h"

namespace tickwire::transport {
namespace {

// Byte layout (docs/connect-tokens.md), little-endian integers:
//
//   public, authenticated as associated data
//     0   version     "TWTOKEN2"
//     8   created     u64 unix seconds
//     16  expires     u64 unix seconds
//     24  nonce       24 random bytes
//     48  count       u8, 1..8
//     49  servers     count x (IPv4 a.b.c.d as 4 bytes, port u16)
//   private, XChaCha20-Poly1305 ciphertext
//     +0  client id   u64
//     +8  session key 32 bytes, not all zeros
//     +40 length      u16, 0..256
//     +42 user data   256 bytes: `length` bytes, then zeros
//     +298 tag        16 bytes
//
// The private part is always the same size, so a token's length depends on
// its server count only and says nothing about the user data.
constexpr std::array<std::uint8_t, 8> kVersionTag{'T', 'W', 'T', 'O', 'K', 'E', 'N', '2'};
// The version before tokens carried a session key: named in the error, so
// that an old minter is recognised as one.
constexpr std::array<std::uint8_t, 8> kOldVersionTag{'T', 'W', 'T', 'O', 'K', 'E', 'N', '1'};
constexpr std::size_t kCreatedOffset = kVersionTag.size();
constexpr std::size_t kExpiresOffset = kCreatedOffset + 8;
constexpr std::size_t kNonceOffset = kExpiresOffset + 8;
constexpr std::size_t kNonceSize = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t kCountOffset = kNonceOffset + kNonceSize;
constexpr std::size_t kServersOffset = kCountOffset + 1;
constexpr std::size_t kServerSize = 4 + 2;
constexpr std::size_t kSessionKeyOffset = 8;
constexpr std::size_t kLengthOffset = kSessionKeyOffset + kTokenKeySize;
constexpr std::size_t kUserDataOffset = kLengthOffset + 2;
constexpr std::size_t kPrivateSize = kUserDataOffset + kMaxTokenUserData;
constexpr std::size_t kTagSize = crypto_aead_xchacha20poly1305_ietf_ABYTES;

constexpr std::size_t public_size(std::size_t servers) { return kServersOffset + servers * kServerSize; }
constexpr std::size_t token_size(std::size_t servers) { return public_size(servers) + kPrivateSize + kTagSize; }

static_assert(kNonceSize == 24 && kTagSize == 16, "the layout above");
static_assert(kTokenKeySize == crypto_aead_xchacha20poly1305_ietf_KEYBYTES);
static_assert(token_size(kMaxTokenServers) <= challenge::kMaxTokenSize, "a token must fit in one RESPONSE");
static_assert(kMaxTokenUserData <= std::numeric_limits<std::uint16_t>::max());

using Ipv4 = std::array<std::uint8_t, 4>;

// sodium_init() is thread-safe and idempotent, but the function-local
// static also keeps its cost to the first call.
bool sodium_ready() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

std::uint64_t read_le(std::span<const std::uint8_t> bytes, std::size_t offset, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t{bytes[offset + i]} << (8 * i);
  return value;
}

void write_le(std::uint8_t* out, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// Dotted-quad IPv4 only, each part 0..255 in decimal without leading
// zeros: a backend and a server spelling the same address differently
// would otherwise disagree on whether a token names the server.
std::optional<Ipv4> parse_ipv4(std::string_view host) {
  Ipv4 out{};
  std::size_t part = 0;
  std::size_t i = 0;
  while (part < out.size()) {
    const std::size_t start = i;
    unsigned value = 0;
    while (i < host.size() && host[i] >= '0' && host[i] <= '9' && i - start < 3) {
      value = value * 10 + static_cast<unsigned>(host[i] - '0');
      ++i;
    }
    const std::size_t digits = i - start;
    if (digits == 0 || value > 255 || (digits > 1 && host[start] == '0')) return std::nullopt;
    out[part++] = static_cast<std::uint8_t>(value);
    if (part < out.size()) {
      if (i >= host.size() || host[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != host.size()) return std::nullopt;
  return out;
}

std::string format_ipv4(const std::uint8_t* bytes) {
  std::string out;
  for (std::size_t i = 0; i < 4; ++i) {
    if (i != 0) out.push_back('.');
    out.append(std::to_string(bytes[i]));
  }
  return out;
}

Error malformed(ErrorCode code, std::string detail) { return make_error(code, "connect token: " + std::move(detail)); }

// The public part, checked for shape only. Tokens are hostile bytes: every
// length is checked before anything past it is read.
Result<ConnectToken> parse_public(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kServersOffset) {
    return malformed(ErrorCode::kTruncated, std::to_string(bytes.size()) + " bytes is shorter than the header");
  }
  if (std::equal(kOldVersionTag.begin(), kOldVersionTag.end(), bytes.begin())) {
    return malformed(ErrorCode::kBadVersion,
                     "a TWTOKEN1 token, a version without a session key that is no longer accepted; mint a new one");
  }
  if (!std::equal(kVersionTag.begin(), kVersionTag.end(), bytes.begin())) {
    return malformed(ErrorCode::kBadVersion, "not a TWTOKEN2 token");
  }
  constexpr auto kMaxTime = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const std::uint64_t created = read_le(bytes, kCreatedOffset, 8);
  const std::uint64_t expires = read_le(bytes, kExpiresOffset, 8);
  if (created > kMaxTime || expires > kMaxTime) return malformed(ErrorCode::kOutOfRange, "time out of range");
  const std::size_t count = bytes[kCountOffset];
  if (count == 0 || count > kMaxTokenServers) {
    return malformed(ErrorCode::kOutOfRange, "server count " + std::to_string(count) + " is not 1..8");
  }
  if (bytes.size() != token_size(count)) {
    return malformed(bytes.size() < token_size(count) ? ErrorCode::kTruncated : ErrorCode::kTooLong,
                     std::to_string(bytes.size()) + " bytes; a token naming " + std::to_string(count) +
                         " server(s) is " + std::to_string(token_size(count)));
  }

  ConnectToken token;
  token.created_unix_seconds = static_cast<std::int64_t>(created);
  token.expires_unix_seconds = static_cast<std::int64_t>(expires);
  token.servers.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = kServersOffset + i * kServerSize;
    const auto port = static_cast<std::uint16_t>(read_le(bytes, at + 4, 2));
    if (port == 0) return malformed(ErrorCode::kOutOfRange, "server port 0");
    token.servers.push_back(Address{format_ipv4(bytes.data() + at), port});
  }
  return token;
}

// Decrypts and reads the private part into `token` (whose public fields
// parse_public filled). kOk, kInvalid or kMalformed.
TokenStatus open_private(std::span<const std::uint8_t> bytes, const TokenKey& key, ConnectToken& token,
                         std::string& why) {
  if (!sodium_ready()) {
    why = "connect token: libsodium failed to initialise";
    return TokenStatus::kInvalid;
  }
  const std::size_t ad_size = public_size(token.servers.size());
  // parse_public checked the total length, so what follows the public part
  // is exactly the sealed private part and fits `plain`.
  const std::span<const std::uint8_t> sealed = bytes.subspan(ad_size);
  std::array<std::uint8_t, kPrivateSize> plain{};
  unsigned long long plain_size = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain.data(), &plain_size, nullptr, sealed.data(), sealed.size(),
                                                 bytes.data(), ad_size, bytes.data() + kNonceOffset,
                                                 key.bytes.data()) != 0 ||
      plain_size != plain.size()) {
    why = "connect token: does not open under this key (forged, altered or another key)";
    return TokenStatus::kInvalid;
  }

  // Authentic but badly formed: only a broken minter makes these, and a
  // canonical encoding means one token has one byte string.
  TokenStatus status = TokenStatus::kOk;
  const std::span<const std::uint8_t> p(plain);
  const auto length = static_cast<std::size_t>(read_le(p, kLengthOffset, 2));
  const auto key_first = p.begin() + static_cast<std::ptrdiff_t>(kSessionKeyOffset);
  const auto key_last = key_first + static_cast<std::ptrdiff_t>(kTokenKeySize);
  if (std::all_of(key_first, key_last, [](std::uint8_t b) { return b == 0; })) {
    why = "connect token: all-zero session key";
    status = TokenStatus::kMalformed;
  } else if (length > kMaxTokenUserData) {
    why = "connect token: user data length " + std::to_string(length) + " over " + std::to_string(kMaxTokenUserData);
    status = TokenStatus::kMalformed;
  } else if (!std::all_of(p.begin() + static_cast<std::ptrdiff_t>(kUserDataOffset + length), p.end(),
                          [](std::uint8_t b) { return b == 0; })) {
    why = "connect token: non-zero padding after the user data";
    status = TokenStatus::kMalformed;
  } else {
    token.client_id = read_le(p, 0, 8);
    std::copy(key_first, key_last, token.session_key.bytes.begin());
    const auto first = p.begin() + static_cast<std::ptrdiff_t>(kUserDataOffset);
    token.user_data.assign(first, first + static_cast<std::ptrdiff_t>(length));
  }
  sodium_memzero(plain.data(), plain.size());
  return status;
}

TokenStatus open_token(std::span<const std::uint8_t> bytes, const TokenKey& key, ConnectToken& out, std::string& why) {
  auto parsed = parse_public(bytes);
  if (!parsed) {
    why = parsed.error().detail;
    return TokenStatus::kMalformed;
  }
  out = std::move(parsed).value();
  return open_private(bytes, key, out, why);
}

bool is_all_zero(const TokenKey& key) {
  return std::all_of(key.bytes.begin(), key.bytes.end(), [](std::uint8_t b) { return b == 0; });
}

bool names_server(const ConnectToken& token, const Address& server) {
  const auto wanted = parse_ipv4(server.host);
  if (!wanted) return false;
  return std::any_of(token.servers.begin(), token.servers.end(),
                     [&](const Address& a) { return a.port == server.port && parse_ipv4(a.host) == wanted; });
}

}  // namespace

TokenKey TokenKey::generate() {
  // No error channel here, and a key that is not random must never be
  // used, so a failed libsodium start stops the process with a reason.
  if (!sodium_ready()) {
    std::fputs("tickwire: libsodium failed to initialise; cannot generate a connect-token key\n", stderr);
    std::abort();
  }
  TokenKey key;
  crypto_aead_xchacha20poly1305_ietf_keygen(key.bytes.data());
  return key;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0x0F]);
  }
  return out;
}

const char* to_string(TokenStatus status) {
  switch (status) {
    case TokenStatus::kOk: return "ok";
    case TokenStatus::kMalformed: return "malformed";
    case TokenStatus::kInvalid: return "invalid";
    case TokenStatus::kExpired: return "expired";
    case TokenStatus::kWrongServer: return "wrong server";
  }
  return "unknown";
}

Result<std::vector<std::uint8_t>> mint_connect_token(const ConnectToken& token, const TokenKey& key) {
  const auto invalid = [](std::string detail) {
    return make_error(ErrorCode::kInvalidArgument, "connect token: " + std::move(detail));
  };
  if (token.servers.empty() || token.servers.size() > kMaxTokenServers) {
    return invalid(std::to_string(token.servers.size()) + " servers; a token names 1 to 8");
  }
  if (token.user_data.size() > kMaxTokenUserData) {
    return invalid(std::to_string(token.user_data.size()) + " bytes of user data; at most 256 fit");
  }
  if (token.created_unix_seconds < 0 || token.expires_unix_seconds <= token.created_unix_seconds) {
    return invalid("the expiry must come after the creation time, and neither before 1970");
  }
  if (is_all_zero(token.session_key)) {
    return invalid("the session key is all zeros (unset); give every token a fresh one from TokenKey::generate()");
  }
  if (!sodium_ready()) return make_error(ErrorCode::kIo, "connect token: libsodium failed to initialise");

  const std::size_t count = token.servers.size();
  std::vector<std::uint8_t> out(token_size(count), 0);
  std::copy(kVersionTag.begin(), kVersionTag.end(), out.begin());
  write_le(out.data() + kCreatedOffset, static_cast<std::uint64_t>(token.created_unix_seconds), 8);
  write_le(out.data() + kExpiresOffset, static_cast<std::uint64_t>(token.expires_unix_seconds), 8);
  // 24 random bytes never repeat in practice, so every token gets a fresh
  // nonce without the minters coordinating a counter.
  randombytes_buf(out.data() + kNonceOffset, kNonceSize);
  out[kCountOffset] = static_cast<std::uint8_t>(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Address& server = token.servers[i];
    const auto ip = parse_ipv4(server.host);
    if (!ip) return invalid("server '" + server.to_string() + "' is not an IPv4 address such as 10.0.0.7:7777");
    if (server.port == 0) return invalid("server '" + server.to_string() + "' has port 0");
    std::uint8_t* at = out.data() + kServersOffset + i * kServerSize;
    std::copy(ip->begin(), ip->end(), at);
    write_le(at + 4, server.port, 2);
  }

  std::array<std::uint8_t, kPrivateSize> plain{};
  write_le(plain.data(), token.client_id, 8);
  std::copy(token.session_key.bytes.begin(), token.session_key.bytes.end(), plain.begin() + kSessionKeyOffset);
  write_le(plain.data() + kLengthOffset, token.user_data.size(), 2);
  std::copy(token.user_data.begin(), token.user_data.end(), plain.begin() + kUserDataOffset);

  const std::size_t ad_size = public_size(count);
  unsigned long long sealed_size = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(out.data() + ad_size, &sealed_size, plain.data(), plain.size(), out.data(),
                                             ad_size, nullptr, out.data() + kNonceOffset, key.bytes.data());
  sodium_memzero(plain.data(), plain.size());
  if (sealed_size != kPrivateSize + kTagSize) return make_error(ErrorCode::kIo, "connect token: encryption failed");
  return out;
}

Result<ConnectToken> open_connect_token(std::span<const std::uint8_t> bytes, const TokenKey& key) {
  ConnectToken token;
  std::string why;
  const TokenStatus status = open_token(bytes, key, token, why);
  if (status != TokenStatus::kOk) return make_error(ErrorCode::kMalformed, std::move(why));
  return token;
}

TokenCheck check_connect_token(std::span<const std::uint8_t> bytes, const TokenKey& key, std::int64_t now_unix_seconds,
                               const Address& server) {
  TokenCheck check;
  ConnectToken token;
  std::string why;
  check.status = open_token(bytes, key, token, why);
  if (check.status == TokenStatus::kMalformed) return check;
  check.fingerprint = connect_token_fingerprint(bytes);
  if (check.status != TokenStatus::kOk) return check;

  if (token.expires_unix_seconds <= now_unix_seconds) {
    check.status = TokenStatus::kExpired;
  } else if (!names_server(token, server)) {
    check.status = TokenStatus::kWrongServer;
  } else {
    check.token = std::move(token);
  }
  return check;
}

std::array<std::uint8_t, 16> connect_token_fingerprint(std::span<const std::uint8_t> bytes) {
  std::array<std::uint8_t, 16> digest{};
  // sodium_init() picks the fastest BLAKE2b for this CPU; should it fail,
  // the portable one gives the same digest, so the result is not checked.
  static_cast<void>(sodium_ready());
  crypto_generichash(digest.data(), digest.size(), bytes.data(), bytes.size(), nullptr, 0);
  return digest;
}

Result<ConnectToken> read_token_public(std::span<const std::uint8_t> bytes) { return parse_public(bytes); }

std::size_t max_connect_token_size() { return token_size(kMaxTokenServers); }

}  // namespace tickwire::transport
