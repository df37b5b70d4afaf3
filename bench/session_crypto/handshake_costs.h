#pragma once
// What the handshake's cryptography costs each end, operation by
// operation (docs/wire-format.md, "Handshake v2"), measured on libsodium's
// own calls with messages of the handshake's sizes.

namespace tickwire::bench {

struct HandshakeCosts {
  double cookie_us = 0;               // keyed BLAKE2b-128 over a CHALLENGE's inputs
  double kx_keypair_us = 0;           // crypto_kx_keypair: per connect (client), per 8 s bucket (server)
  double server_session_keys_us = 0;  // crypto_kx_server_session_keys (X25519 + BLAKE2b)
  double client_session_keys_us = 0;  // crypto_kx_client_session_keys
  double token_mix_us = 0;            // both keys mixed with a token's session key
  double confirmation_us = 0;         // keyed BLAKE2b-128 over "tickwire accepted" | nonce | id
  double sign_us = 0;                 // Ed25519 over the ACCEPTED transcript
  double verify_us = 0;               // its verification under a pinned key
  double identity_from_seed_us = 0;   // crypto_sign_seed_keypair, once per server start

  // An accepted RESPONSE: the cookie checked, keys derived, ACCEPTED signed.
  double server_total_us(bool token) const {
    return cookie_us + server_session_keys_us + (token ? token_mix_us : 0) + confirmation_us + sign_us;
  }
  // A connect: a fresh key pair, keys derived, ACCEPTED checked.
  double client_total_us(bool token, bool pinned) const {
    return kx_keypair_us + client_session_keys_us + (token ? token_mix_us : 0) + confirmation_us +
           (pinned ? verify_us : 0);
  }
};

HandshakeCosts measure_handshake_costs(int trials);

}  // namespace tickwire::bench
