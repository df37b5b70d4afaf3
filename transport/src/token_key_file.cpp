// Connect-token keys, server identities and client tokens as hexadecimal
// text and files.

#include <sodium.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "hex_key.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/server_identity.h"

namespace tickwire::transport {
namespace {

using hex_key::digit_value;
using hex_key::trim;

Error bad_client_token(std::string detail) {
  return make_error(ErrorCode::kInvalidArgument, "client token: " + std::move(detail));
}

// The token's line (never empty: the text was trimmed): hex digits in
// pairs, no longer than any token.
Result<std::vector<std::uint8_t>> token_from_hex(std::string_view line) {
  if (line.size() % 2 != 0) return bad_client_token("line 1 (the token) has an odd number of hexadecimal digits");
  if (line.size() / 2 > max_connect_token_size()) {
    return bad_client_token("line 1 (the token) is " + std::to_string(line.size() / 2) + " bytes; no token is over " +
                            std::to_string(max_connect_token_size()));
  }
  std::vector<std::uint8_t> out(line.size() / 2);
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (digit_value(line[i]) < 0) {
      return bad_client_token("line 1 (the token): character " + std::to_string(i + 1) + " is not a hexadecimal digit");
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(digit_value(line[2 * i]) * 16 + digit_value(line[2 * i + 1]));
  }
  return out;
}

}  // namespace

Result<TokenKey> TokenKey::from_hex(std::string_view text) {
  auto bytes = hex_key::parse(text, "a connect-token key");
  if (!bytes) return bytes.error();
  TokenKey key;
  key.bytes = *bytes;
  return key;
}

Result<TokenKey> TokenKey::load(const std::string& path) {
  auto bytes = hex_key::load(path, "a connect-token key");
  if (!bytes) return bytes.error();
  TokenKey key;
  key.bytes = *bytes;
  return key;
}

std::string TokenKey::to_hex() const { return transport::to_hex(bytes); }

Result<ServerPublicKey> ServerPublicKey::from_hex(std::string_view text) {
  auto bytes = hex_key::parse(text, "a server key");
  if (!bytes) return bytes.error();
  ServerPublicKey key;
  key.bytes = *bytes;
  return key;
}

std::string ServerPublicKey::to_hex() const { return transport::to_hex(bytes); }

ServerIdentity ServerIdentity::generate() {
  // No error channel here, and a key that is not random must never be
  // used, so a failed libsodium start stops the process with a reason.
  if (sodium_init() < 0) {
    std::fputs("tickwire: libsodium failed to initialise; cannot generate a server identity\n", stderr);
    std::abort();
  }
  ServerIdentity identity;
  randombytes_buf(identity.seed.data(), identity.seed.size());
  return identity;
}

Result<ServerIdentity> ServerIdentity::from_hex(std::string_view text) {
  auto bytes = hex_key::parse(text, "a server identity");
  if (!bytes) return bytes.error();
  ServerIdentity identity;
  identity.seed = *bytes;
  return identity;
}

Result<ServerIdentity> ServerIdentity::load(const std::string& path) {
  auto bytes = hex_key::load(path, "a server identity");
  if (!bytes) return bytes.error();
  ServerIdentity identity;
  identity.seed = *bytes;
  return identity;
}

std::string ServerIdentity::to_hex() const { return transport::to_hex(seed); }

ServerPublicKey ServerIdentity::public_key() const {
  std::array<std::uint8_t, crypto_sign_SECRETKEYBYTES> secret{};
  ServerPublicKey key;
  crypto_sign_seed_keypair(key.bytes.data(), secret.data(), seed.data());
  sodium_memzero(secret.data(), secret.size());
  return key;
}

Result<ClientToken> parse_client_token(std::string_view text) {
  text = trim(text);
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) {
    return bad_client_token("two lines of hex expected, the token and then its session key; got one line");
  }
  const std::string_view rest = trim(text.substr(newline + 1));
  if (rest.find('\n') != std::string_view::npos) {
    return bad_client_token("two lines of hex expected, the token and then its session key; got more");
  }
  auto token = token_from_hex(trim(text.substr(0, newline)));
  if (!token) return token.error();
  auto key = hex_key::parse(rest, "line 2, the session key,");
  if (!key) return bad_client_token(key.error().detail);
  if (std::all_of(key->begin(), key->end(), [](std::uint8_t b) { return b == 0; })) {
    return bad_client_token("line 2, the session key, is all zeros");
  }
  ClientToken out;
  out.token = std::move(token).value();
  out.session_key.bytes = *key;
  return out;
}

Result<ClientToken> load_client_token(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kIo, path + ": cannot be read (" + std::strerror(errno) + ")");
  // Two lines of hex are under 1 kB; reading a little more tells a wrong
  // file from a right one without swallowing a huge one.
  constexpr std::size_t kReadLimit = 8192;
  std::string buffer(kReadLimit, '\0');
  in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  buffer.resize(static_cast<std::size_t>(in.gcount()));
  auto parsed = parse_client_token(buffer);
  if (!parsed) return make_error(parsed.error().code, path + ": " + parsed.error().detail);
  return parsed;
}

}  // namespace tickwire::transport
