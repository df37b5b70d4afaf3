#pragma once
// What the address_validation target's header byte sets, and the fixed
// server and token it runs with (address_validation_fuzz.cpp): shared with
// its seed generator (transport_corpus.cpp) through the header bits.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "connect_token_fixture.h"
#include "fuzz_check.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/enet_transport.h"
#include "tickwire/transport/server_identity.h"

namespace tickwire::fuzz {

// Header bits: the server requires tokens, the server allows plaintext,
// the client asks for it, (bits 3-4) the client pins the right or another
// server key, and (bits 5, 6) the server or the client cannot seal with
// AES-256-GCM. The AES choice is set here, not read from this CPU, so an
// input takes the same path everywhere (nothing here seals a datagram).
inline constexpr std::uint8_t kHeaderTokens = 1;
inline constexpr std::uint8_t kHeaderAllowPlaintext = 2;
inline constexpr std::uint8_t kHeaderPlaintext = 4;
inline constexpr std::uint8_t kHeaderPinRight = 1U << 3;
inline constexpr std::uint8_t kHeaderPinWrong = 2U << 3;
inline constexpr std::uint8_t kHeaderServerWithoutAes = 1U << 5;
inline constexpr std::uint8_t kHeaderClientWithoutAes = 1U << 6;

struct Setup {
  bool tokens = false;
  bool allow_plaintext = false;
  bool plaintext = false;
  std::uint8_t pin = 0;  // 1 the server's key, 2 another
  bool server_aes = true;
  bool client_aes = true;

  explicit Setup(std::uint8_t header)
      : tokens((header & kHeaderTokens) != 0),
        allow_plaintext((header & kHeaderAllowPlaintext) != 0),
        plaintext((header & kHeaderPlaintext) != 0),
        pin(static_cast<std::uint8_t>((header >> 3) & 3U)),
        server_aes((header & kHeaderServerWithoutAes) == 0),
        client_aes((header & kHeaderClientWithoutAes) == 0) {}
  // Whether a success proves the server: everything but plaintext unpinned.
  bool verified() const { return !plaintext || pin == 1; }
};

// Fixed, so that an input takes the same path every run as far as the
// random key pairs and nonces allow.
inline transport::ServerIdentity fuzz_identity(std::uint8_t first) {
  transport::ServerIdentity identity;
  for (std::size_t i = 0; i < identity.seed.size(); ++i) identity.seed[i] = static_cast<std::uint8_t>(first + i);
  return identity;
}

// Limits small enough for a short input to reach each of them.
inline transport::AddressValidationConfig validation_config(bool tokens) {
  transport::AddressValidationConfig c;
  c.max_pending = 3;
  c.max_pending_per_host = 2;
  c.admission_lifetime = Duration::seconds(5);
  c.max_challenges_per_second = 4;
  c.retry_interval = Duration::millis(250);
  c.server_identity = fuzz_identity(0x11);
  if (tokens) {
    c.token_key = token_fuzz_key();
    c.token_address = token_fuzz_server();
  }
  return c;
}

// The client's token: valid for an hour of the stepped clock, so expiry is
// reachable too.
inline const std::vector<std::uint8_t>& client_token() {
  static const std::vector<std::uint8_t> token = [] {
    transport::ConnectToken t;
    t.created_unix_seconds = kTokenFuzzNow - 60;
    t.expires_unix_seconds = kTokenFuzzNow + 3600;
    t.servers = {token_fuzz_server()};
    t.client_id = 7;
    t.session_key = token_fuzz_key();
    t.session_key.bytes[0] ^= 0xFF;
    auto minted = mint_connect_token(t, token_fuzz_key());
    TICKWIRE_FUZZ_CHECK(minted.ok());
    return minted.value();
  }();
  return token;
}

// The session key the server reads from that token.
inline transport::TokenKey client_token_session_key() {
  auto opened = open_connect_token(client_token(), token_fuzz_key());
  TICKWIRE_FUZZ_CHECK(opened.ok());
  return opened.value().session_key;
}

}  // namespace tickwire::fuzz
