#pragma once
// What the handshake's cryptography costs each end, operation by operation
// (docs/wire-format.md, "Address validation and key exchange"), measured on
// the transport's own handshake code (transport/src/handshake_crypto.h).

namespace tickwire::bench {

struct HandshakeCosts {
  double cookie_us = 0;              // keyed BLAKE2b-128 over a cookie's inputs
  double kx_keypair_us = 0;          // a key exchange pair: per connect (client), per 8 s bucket (server)
  double server_keys_us = 0;         // the server's session keys (X25519, BLAKE2b)
  double server_keys_token_us = 0;   // the same, mixed with a token's session key
  double client_keys_us = 0;         // the client's session keys
  double client_keys_token_us = 0;   // the same, mixed with a token's session key
  double confirmation_us = 0;        // the ACCEPTED's confirmation, made or checked
  double sign_us = 0;                // Ed25519 over the ACCEPTED's transcript
  double verify_us = 0;              // its check under a pinned key
  double identity_from_seed_us = 0;  // the signer's key pair from its seed, once per server start

  // An accepted RESPONSE: the cookie checked, keys derived, ACCEPTED made
  // and signed. (The server's key pair is made once per 8 s, not here.)
  double server_total_us(bool token) const {
    return cookie_us + (token ? server_keys_token_us : server_keys_us) + confirmation_us + sign_us;
  }
  // A connect: a fresh key pair, keys derived, the ACCEPTED checked.
  double client_total_us(bool token, bool pinned) const {
    return kx_keypair_us + (token ? client_keys_token_us : client_keys_us) + confirmation_us + (pinned ? verify_us : 0);
  }
};

HandshakeCosts measure_handshake_costs(int trials);

}  // namespace tickwire::bench
