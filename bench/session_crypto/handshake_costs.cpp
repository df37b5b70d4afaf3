#include "handshake_costs.h"

#include <sodium.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "handshake_crypto.h"
#include "timing.h"

namespace tickwire::bench {

namespace {

using namespace tickwire::transport;

constexpr int kBatch = 8;

void check(bool ok, const char* what) {
  if (ok) return;
  (void)std::fprintf(stderr, "bench_session_crypto: %s failed\n", what);
  std::exit(1);
}

double us(double ns) { return ns / 1000.0; }

template <typename Op>
double us_per_op(int trials, Op&& op) {
  return us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) op();
  }));
}

}  // namespace

HandshakeCosts measure_handshake_costs(int trials) {
  HandshakeCosts costs;
  const handshake::KxKeyPair server_pair = handshake::KxKeyPair::generate();
  const handshake::KxKeyPair client_pair = handshake::KxKeyPair::generate();
  TokenKey token_session_key;
  randombytes_buf(token_session_key.bytes.data(), token_session_key.bytes.size());
  const std::optional<TokenKey> no_token;

  // The cookie's inputs: address 4, port 2, nonce 8, bucket 8, flags 1,
  // client key 32, under a 32-byte secret (address_validator.cpp).
  std::array<std::uint8_t, 55> cookie_input{};
  std::array<std::uint8_t, 32> cookie_secret{};
  randombytes_buf(cookie_input.data(), cookie_input.size());
  randombytes_buf(cookie_secret.data(), cookie_secret.size());
  std::array<std::uint8_t, 16> cookie{};
  costs.cookie_us = us_per_op(trials, [&] {
    crypto_generichash(cookie.data(), cookie.size(), cookie_input.data(), cookie_input.size(), cookie_secret.data(),
                       cookie_secret.size());
  });

  costs.kx_keypair_us = us_per_op(trials, [] { (void)handshake::KxKeyPair::generate(); });

  SessionKeys server_keys;
  SessionKeys client_keys;
  costs.server_keys_us = us_per_op(
      trials, [&] { check(server_pair.server_keys(client_pair.public_key(), no_token, server_keys), "server_keys"); });
  costs.server_keys_token_us = us_per_op(trials, [&] {
    check(server_pair.server_keys(client_pair.public_key(), token_session_key, server_keys), "server_keys");
  });
  costs.client_keys_us = us_per_op(
      trials, [&] { check(client_pair.client_keys(server_pair.public_key(), no_token, client_keys), "client_keys"); });
  costs.client_keys_token_us = us_per_op(trials, [&] {
    check(client_pair.client_keys(server_pair.public_key(), token_session_key, client_keys), "client_keys");
  });
  check(server_keys.send == client_keys.receive && server_keys.receive == client_keys.send,
        "the two ends' session keys agree");

  const std::uint64_t nonce = 0x0123456789ABCDEF;
  const std::uint32_t connection_id = 0x5EA1ED01;
  challenge::Confirmation confirmation{};
  costs.confirmation_us =
      us_per_op(trials, [&] { confirmation = handshake::confirmation(server_keys.send, nonce, connection_id, 0); });
  check(handshake::confirmation_valid(client_keys.receive, nonce, connection_id, 0, confirmation), "confirmation");

  const ServerIdentity identity = ServerIdentity::generate();
  costs.identity_from_seed_us = us_per_op(trials, [&] { const handshake::Signer signer(identity); });
  const handshake::Signer signer(identity);
  const handshake::Transcript transcript{nonce,         0, client_pair.public_key(), server_pair.public_key(),
                                         connection_id, 0};
  challenge::Signature signature{};
  costs.sign_us = us_per_op(trials, [&] { signature = signer.sign(transcript); });
  costs.verify_us = us_per_op(trials, [&] {
    check(handshake::signature_valid(signer.public_key(), transcript, signature), "signature_valid");
  });
  return costs;
}

}  // namespace tickwire::bench
