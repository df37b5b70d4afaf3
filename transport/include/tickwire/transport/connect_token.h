#pragma once
// Connect tokens: a game's backend decides who may join which server.
//
// The backend mints a token for a client (the servers it may join, an
// expiry, the client's id and opaque user data) under a key it shares with
// the servers, and hands it to the client over its own secure channel. The
// client presents it during address validation; a server that requires
// tokens admits only a client whose token opens under its key, has not
// expired and names the server's own address. The public part (version,
// times, server addresses) is readable by anyone and authenticated; the
// private part (client id, user data) is encrypted with
// XChaCha20-Poly1305. Byte layout: docs/connect-tokens.md.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/transport/address.h"

namespace tickwire::transport {

inline constexpr std::size_t kTokenKeySize = 32;
inline constexpr std::size_t kMaxTokenServers = 8;
inline constexpr std::size_t kMaxTokenUserData = 256;

// Lower-case hexadecimal, two digits a byte: how keys and tokens travel in
// files, command lines and backends' configuration.
std::string to_hex(std::span<const std::uint8_t> bytes);

struct TokenKey {
  std::array<std::uint8_t, kTokenKeySize> bytes{};

  // A fresh random key. Stops the process if libsodium cannot start (no
  // random source): there is no safe key to return instead.
  static TokenKey generate();
  // 64 hexadecimal digits (whitespace around them ignored).
  static Result<TokenKey> from_hex(std::string_view text);
  std::string to_hex() const;
  // A file holding the hex digits (a trailing newline is fine). Errors name
  // the file and what is wrong with it.
  static Result<TokenKey> load(const std::string& path);
};

struct ConnectToken {
  std::int64_t created_unix_seconds = 0;
  std::int64_t expires_unix_seconds = 0;
  std::vector<Address> servers;  // IPv4 literals with ports, 1..kMaxTokenServers
  std::uint64_t client_id = 0;
  std::vector<std::uint8_t> user_data;  // at most kMaxTokenUserData bytes
  // The key the session's keys are mixed with (docs/security.md), known
  // only to the backend, the client it handed the token to and the servers.
  // Carried in the private part.
  TokenKey session_key;
};

enum class TokenStatus : std::uint8_t {
  kOk,
  kMalformed,    // not a token of this version, a bad length or field, or (once
                 // opened) a user data length over the limit or non-zero padding
  kInvalid,      // does not open under the key (forged, altered or another key)
  kExpired,      // expires_unix_seconds <= now
  kWrongServer,  // opens, but does not name the checking server
};

const char* to_string(TokenStatus status);

struct TokenCheck {
  TokenStatus status = TokenStatus::kMalformed;
  ConnectToken token;  // filled when status is kOk
  // A digest of the whole token, the same for every copy of it; a server
  // uses it to notice one token presented from two addresses.
  std::array<std::uint8_t, 16> fingerprint{};
};

// Fails with kInvalidArgument for an empty or too long server list, a
// server that is not an IPv4 literal with a port, user data over the
// limit, or an expiry not after creation (or a creation time before 1970).
// The token's length depends on its server count only
// (max_connect_token_size() for kMaxTokenServers): the user data is padded.
Result<std::vector<std::uint8_t>> mint_connect_token(const ConnectToken& token, const TokenKey& key);

// Opens and checks a token. `server` is the address the checking server is
// reachable at, as listed by the backend; it matches a listed server only
// with the same IPv4 address and port. The checks run in the order of
// TokenStatus: shape, then authenticity, then expiry, then server. Never
// throws; any bytes are safe to pass. The fingerprint is filled for every
// status but kMalformed.
TokenCheck check_connect_token(std::span<const std::uint8_t> bytes, const TokenKey& key, std::int64_t now_unix_seconds,
                               const Address& server);

// Opens a token and reads both parts, checking neither expiry nor server:
// for tools and logs that show what a rejected token held. Admission goes
// through check_connect_token.
Result<ConnectToken> open_connect_token(std::span<const std::uint8_t> bytes, const TokenKey& key);

// The public part, readable without the key: where the client may connect
// and until when. Nothing is verified here.
Result<ConnectToken> read_token_public(std::span<const std::uint8_t> bytes);

// The digest TokenCheck::fingerprint holds (BLAKE2b-128 of the bytes,
// unkeyed), for logs and tools that have no key.
std::array<std::uint8_t, 16> connect_token_fingerprint(std::span<const std::uint8_t> bytes);

// The largest token mint_connect_token makes; it fits in one RESPONSE.
std::size_t max_connect_token_size();

}  // namespace tickwire::transport
