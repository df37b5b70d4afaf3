#pragma once
// The cryptography of the handshake (connect_challenge.h, version 2;
// docs/security.md): X25519 key pairs (crypto_kx), the session keys both
// sides derive from them and from the connect token's session key, the
// server's Ed25519 signature over the exchange, and the confirmation tag
// that proves the server derived the client's keys. Every secret here is
// wiped (sodium_memzero) when its holder is dropped.

#include <array>
#include <cstdint>
#include <optional>

#include "session_params.h"
#include "tickwire/transport/connect_challenge.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/server_identity.h"

namespace tickwire::transport::handshake {

// Overwrites the keys in place, so that they do not linger in freed memory.
void wipe(SessionKeys& keys);

// SessionParams that wipe their keys when dropped, for the copies a side
// keeps while an exchange is under way.
class SecretSession {
 public:
  SecretSession() = default;
  explicit SecretSession(const SessionParams& params) : params_(params) {}
  SecretSession(const SecretSession&) = default;
  SecretSession(SecretSession&&) = default;
  SecretSession& operator=(const SecretSession&) = default;
  SecretSession& operator=(SecretSession&&) = default;
  ~SecretSession() { wipe(params_.keys); }

  const SessionParams& params() const { return params_; }
  SessionParams& params() { return params_; }

 private:
  SessionParams params_;
};

// An X25519 key pair for crypto_kx; the secret half is wiped when the pair
// is dropped (a moved-from pair is wiped at once).
class KxKeyPair {
 public:
  // A fresh random pair. Stops the process if libsodium cannot start.
  static KxKeyPair generate();
  KxKeyPair(const KxKeyPair&) = delete;
  KxKeyPair& operator=(const KxKeyPair&) = delete;
  KxKeyPair(KxKeyPair&& other) noexcept;
  KxKeyPair& operator=(KxKeyPair&& other) noexcept;
  ~KxKeyPair();

  const challenge::PublicKey& public_key() const { return public_; }

  // The session keys as the server holds them (send = server to client,
  // receive = client to server), mixed with the token's session key when
  // there is one. False, with `out` wiped, when the client's key is
  // unusable (a point of small order gives no shared secret).
  bool server_keys(const challenge::PublicKey& client, const std::optional<TokenKey>& token_session_key,
                   SessionKeys& out) const;
  // The same keys as the client holds them (send = client to server).
  bool client_keys(const challenge::PublicKey& server, const std::optional<TokenKey>& token_session_key,
                   SessionKeys& out) const;

 private:
  KxKeyPair() = default;

  challenge::PublicKey public_{};
  std::array<std::uint8_t, 32> secret_{};
};

// The server's key exchange pairs, one per cookie time bucket: the current
// bucket's and the one before, as long as cookies made in them are valid.
// Older ones are wiped. A pair is made once per bucket, so answering a
// HELLO costs no public-key operation beyond that.
class RotatingKxKeys {
 public:
  // Makes `bucket` current (a new pair unless it has one), keeping the pair
  // of bucket - 1 and dropping any other.
  void rotate_to(std::int64_t bucket);
  // Nothing once the bucket's pair has been dropped.
  const KxKeyPair* pair_of(std::int64_t bucket) const;

 private:
  struct Slot {
    std::int64_t bucket;
    KxKeyPair pair;
  };
  std::optional<Slot> current_;
  std::optional<Slot> previous_;
};

// What the server's signature covers.
struct Transcript {
  std::uint64_t nonce = 0;
  std::uint8_t flags = 0;  // the RESPONSE's: what the client asked for and offered
  challenge::PublicKey client_key{};
  challenge::PublicKey server_key{};  // the server's key exchange key
  std::uint32_t connection_id = 0;
  std::uint8_t accepted_flags = 0;  // the ACCEPTED's: what the server chose (the cipher)
};

// Signs with the server's identity; the Ed25519 secret key is wiped when
// the signer is dropped.
class Signer {
 public:
  explicit Signer(const ServerIdentity& identity);
  Signer(const Signer&) = delete;
  Signer& operator=(const Signer&) = delete;
  ~Signer();

  challenge::Signature sign(const Transcript& transcript) const;
  const ServerPublicKey& public_key() const { return public_; }

 private:
  ServerPublicKey public_;
  std::array<std::uint8_t, 64> secret_{};
};

bool signature_valid(const ServerPublicKey& key, const Transcript& transcript, const challenge::Signature& signature);

// keyed BLAKE2b-128(key = server-to-client key; "tickwire accepted" |
// nonce | connection id | the ACCEPTED's flags): the cipher the server
// chose is bound to the keys, so a changed choice fails here instead of
// leaving two ends that cannot open each other's datagrams.
challenge::Confirmation confirmation(const std::array<std::uint8_t, kSessionKeySize>& server_to_client,
                                     std::uint64_t nonce, std::uint32_t connection_id, std::uint8_t accepted_flags);
// In constant time.
bool confirmation_valid(const std::array<std::uint8_t, kSessionKeySize>& server_to_client, std::uint64_t nonce,
                        std::uint32_t connection_id, std::uint8_t accepted_flags,
                        const challenge::Confirmation& received);

}  // namespace tickwire::transport::handshake
