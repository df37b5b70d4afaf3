// Connect-token keys and server identities as hexadecimal text and files.

#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "hex_key.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/server_identity.h"

namespace tickwire::transport {

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

}  // namespace tickwire::transport
