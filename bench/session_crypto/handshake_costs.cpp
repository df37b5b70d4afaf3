#include "handshake_costs.h"

#include <sodium.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "timing.h"

namespace tickwire::bench {

namespace {

constexpr int kBatch = 8;

using Key = std::array<std::uint8_t, 32>;

void check(bool ok, const char* what) {
  if (ok) return;
  (void)std::fprintf(stderr, "bench_session_crypto: %s failed\n", what);
  std::exit(1);
}

double us(double ns) { return ns / 1000.0; }

// Keyed BLAKE2b of `size` output bytes over `prefix` then `rest`.
void keyed_hash(std::uint8_t* out, std::size_t size, const Key& key, std::string_view prefix, const std::uint8_t* rest,
                std::size_t rest_size) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, key.data(), key.size(), size);
  crypto_generichash_update(&state, reinterpret_cast<const std::uint8_t*>(prefix.data()), prefix.size());
  crypto_generichash_update(&state, rest, rest_size);
  crypto_generichash_final(&state, out, size);
}

}  // namespace

HandshakeCosts measure_handshake_costs(int trials) {
  HandshakeCosts costs;
  std::array<std::uint8_t, crypto_kx_PUBLICKEYBYTES> server_pk{};
  std::array<std::uint8_t, crypto_kx_SECRETKEYBYTES> server_sk{};
  std::array<std::uint8_t, crypto_kx_PUBLICKEYBYTES> client_pk{};
  std::array<std::uint8_t, crypto_kx_SECRETKEYBYTES> client_sk{};
  crypto_kx_keypair(server_pk.data(), server_sk.data());
  crypto_kx_keypair(client_pk.data(), client_sk.data());
  Key c2s{};
  Key s2c{};
  Key token_key{};
  randombytes_buf(token_key.data(), token_key.size());

  // The cookie's inputs: address 4, port 2, nonce 8, bucket 8, flags 1, client pk 32.
  std::array<std::uint8_t, 55> cookie_input{};
  randombytes_buf(cookie_input.data(), cookie_input.size());
  std::array<std::uint8_t, 16> cookie{};
  costs.cookie_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) keyed_hash(cookie.data(), cookie.size(), token_key, {}, cookie_input.data(), 55);
  }));

  costs.kx_keypair_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) crypto_kx_keypair(client_pk.data(), client_sk.data());
  }));
  costs.server_session_keys_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      check(crypto_kx_server_session_keys(c2s.data(), s2c.data(), server_pk.data(), server_sk.data(),
                                          client_pk.data()) == 0,
            "crypto_kx_server_session_keys");
    }
  }));
  Key client_rx{};
  Key client_tx{};
  costs.client_session_keys_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      check(crypto_kx_client_session_keys(client_rx.data(), client_tx.data(), client_pk.data(), client_sk.data(),
                                          server_pk.data()) == 0,
            "crypto_kx_client_session_keys");
    }
  }));
  check(client_tx == c2s && client_rx == s2c, "the two ends' session keys agree");

  Key mixed_c2s{};
  Key mixed_s2c{};
  costs.token_mix_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      keyed_hash(mixed_c2s.data(), mixed_c2s.size(), token_key, "tickwire c2s", c2s.data(), c2s.size());
      keyed_hash(mixed_s2c.data(), mixed_s2c.size(), token_key, "tickwire s2c", s2c.data(), s2c.size());
    }
  }));

  // nonce 8, connection id 4
  std::array<std::uint8_t, 12> accepted_input{};
  randombytes_buf(accepted_input.data(), accepted_input.size());
  std::array<std::uint8_t, 16> confirmation{};
  costs.confirmation_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      keyed_hash(confirmation.data(), confirmation.size(), mixed_s2c, "tickwire accepted", accepted_input.data(), 12);
    }
  }));

  // "tickwire handshake v2" 21, nonce 8, flags 1, client pk 32, server pk 32, id 4, confirmation 16.
  std::array<std::uint8_t, 114> transcript{};
  randombytes_buf(transcript.data(), transcript.size());
  std::array<std::uint8_t, crypto_sign_SEEDBYTES> seed{};
  randombytes_buf(seed.data(), seed.size());
  std::array<std::uint8_t, crypto_sign_PUBLICKEYBYTES> identity_pk{};
  std::array<std::uint8_t, crypto_sign_SECRETKEYBYTES> identity_sk{};
  costs.identity_from_seed_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) crypto_sign_seed_keypair(identity_pk.data(), identity_sk.data(), seed.data());
  }));
  std::array<std::uint8_t, crypto_sign_BYTES> signature{};
  costs.sign_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      crypto_sign_detached(signature.data(), nullptr, transcript.data(), transcript.size(), identity_sk.data());
    }
  }));
  costs.verify_us = us(median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      check(
          crypto_sign_verify_detached(signature.data(), transcript.data(), transcript.size(), identity_pk.data()) == 0,
          "crypto_sign_verify_detached");
    }
  }));
  sodium_memzero(server_sk.data(), server_sk.size());
  sodium_memzero(client_sk.data(), client_sk.size());
  sodium_memzero(identity_sk.data(), identity_sk.size());
  return costs;
}

}  // namespace tickwire::bench
