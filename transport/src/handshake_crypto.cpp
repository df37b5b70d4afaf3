#include "handshake_crypto.h"

#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace tickwire::transport::handshake {
namespace {

using Key = std::array<std::uint8_t, kSessionKeySize>;

static_assert(crypto_kx_PUBLICKEYBYTES == challenge::kPublicKeySize);
static_assert(crypto_kx_SECRETKEYBYTES == 32 && crypto_kx_SESSIONKEYBYTES == kSessionKeySize);
static_assert(crypto_sign_BYTES == challenge::kSignatureSize && crypto_sign_SECRETKEYBYTES == 64);
static_assert(crypto_sign_PUBLICKEYBYTES == kServerKeySize && crypto_sign_SEEDBYTES == kServerKeySize);

constexpr std::string_view kClientToServerLabel = "tickwire c2s";
constexpr std::string_view kServerToClientLabel = "tickwire s2c";
constexpr std::string_view kTranscriptLabel = "tickwire handshake v2";
constexpr std::string_view kConfirmationLabel = "tickwire accepted";

void append(std::vector<std::uint8_t>& out, std::string_view text) { out.insert(out.end(), text.begin(), text.end()); }

void append_le(std::vector<std::uint8_t>& out, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// key' = BLAKE2b-256(key = token session key, message = label | key): only
// someone who holds the token's session key (the backend, the client it
// gave the token to, a server holding the token key) ends up with key'.
void mix(Key& key, std::string_view label, const TokenKey& token_session_key) {
  std::array<std::uint8_t, 12 + kSessionKeySize> message{};
  static_assert(kClientToServerLabel.size() == 12 && kServerToClientLabel.size() == 12);
  std::memcpy(message.data(), label.data(), label.size());
  std::memcpy(message.data() + label.size(), key.data(), key.size());
  crypto_generichash(key.data(), key.size(), message.data(), message.size(), token_session_key.bytes.data(),
                     token_session_key.bytes.size());
  sodium_memzero(message.data(), message.size());
}

// Mixes both directions; `send_label` names the direction of keys.send.
void mix_token(SessionKeys& keys, const std::optional<TokenKey>& token_session_key, bool server) {
  if (!token_session_key) return;
  mix(keys.send, server ? kServerToClientLabel : kClientToServerLabel, *token_session_key);
  mix(keys.receive, server ? kClientToServerLabel : kServerToClientLabel, *token_session_key);
}

std::vector<std::uint8_t> transcript_bytes(const Transcript& t) {
  std::vector<std::uint8_t> out;
  out.reserve(kTranscriptLabel.size() + 8 + 1 + 2 * challenge::kPublicKeySize + 4 + 1);
  append(out, kTranscriptLabel);
  append_le(out, t.nonce, 8);
  out.push_back(t.flags);
  out.insert(out.end(), t.client_key.begin(), t.client_key.end());
  out.insert(out.end(), t.server_key.begin(), t.server_key.end());
  append_le(out, t.connection_id, 4);
  out.push_back(t.accepted_flags);
  return out;
}

}  // namespace

void wipe(SessionKeys& keys) {
  sodium_memzero(keys.send.data(), keys.send.size());
  sodium_memzero(keys.receive.data(), keys.receive.size());
}

// ---- KxKeyPair ----

KxKeyPair KxKeyPair::generate() {
  // Cheap once libsodium is up; without a random source there is no safe
  // key to return.
  if (sodium_init() < 0) {
    static_cast<void>(std::fputs("tickwire: libsodium failed to initialise; cannot make a key exchange key\n", stderr));
    std::abort();
  }
  KxKeyPair pair;
  crypto_kx_keypair(pair.public_.data(), pair.secret_.data());
  return pair;
}

KxKeyPair::KxKeyPair(KxKeyPair&& other) noexcept : public_(other.public_), secret_(other.secret_) {
  sodium_memzero(other.secret_.data(), other.secret_.size());
}

KxKeyPair& KxKeyPair::operator=(KxKeyPair&& other) noexcept {
  if (this != &other) {
    public_ = other.public_;
    secret_ = other.secret_;
    sodium_memzero(other.secret_.data(), other.secret_.size());
  }
  return *this;
}

KxKeyPair::~KxKeyPair() { sodium_memzero(secret_.data(), secret_.size()); }

bool KxKeyPair::server_keys(const challenge::PublicKey& client, const std::optional<TokenKey>& token_session_key,
                            SessionKeys& out) const {
  // The server receives what the client sends (rx = client to server).
  if (crypto_kx_server_session_keys(out.receive.data(), out.send.data(), public_.data(), secret_.data(),
                                    client.data()) != 0) {
    wipe(out);
    return false;
  }
  mix_token(out, token_session_key, true);
  return true;
}

bool KxKeyPair::client_keys(const challenge::PublicKey& server, const std::optional<TokenKey>& token_session_key,
                            SessionKeys& out) const {
  if (crypto_kx_client_session_keys(out.receive.data(), out.send.data(), public_.data(), secret_.data(),
                                    server.data()) != 0) {
    wipe(out);
    return false;
  }
  mix_token(out, token_session_key, false);
  return true;
}

// ---- RotatingKxKeys ----

void RotatingKxKeys::rotate_to(std::int64_t bucket) {
  if (current_ && current_->bucket == bucket) return;
  if (current_ && current_->bucket == bucket - 1) {
    previous_ = std::move(current_);  // the older previous pair is wiped as it is replaced
  } else {
    previous_.reset();
  }
  current_.emplace(Slot{bucket, KxKeyPair::generate()});
}

const KxKeyPair* RotatingKxKeys::pair_of(std::int64_t bucket) const {
  if (current_ && current_->bucket == bucket) return &current_->pair;
  if (previous_ && previous_->bucket == bucket) return &previous_->pair;
  return nullptr;
}

// ---- signatures and confirmation ----

Signer::Signer(const ServerIdentity& identity) {
  crypto_sign_seed_keypair(public_.bytes.data(), secret_.data(), identity.seed.data());
}

Signer::~Signer() { sodium_memzero(secret_.data(), secret_.size()); }

challenge::Signature Signer::sign(const Transcript& transcript) const {
  const std::vector<std::uint8_t> message = transcript_bytes(transcript);
  challenge::Signature signature{};
  crypto_sign_detached(signature.data(), nullptr, message.data(), message.size(), secret_.data());
  return signature;
}

bool signature_valid(const ServerPublicKey& key, const Transcript& transcript, const challenge::Signature& signature) {
  const std::vector<std::uint8_t> message = transcript_bytes(transcript);
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(), key.bytes.data()) == 0;
}

challenge::Confirmation confirmation(const Key& server_to_client, std::uint64_t nonce, std::uint32_t connection_id,
                                     std::uint8_t accepted_flags) {
  std::vector<std::uint8_t> message;
  append(message, kConfirmationLabel);
  append_le(message, nonce, 8);
  append_le(message, connection_id, 4);
  message.push_back(accepted_flags);
  challenge::Confirmation tag{};
  crypto_generichash(tag.data(), tag.size(), message.data(), message.size(), server_to_client.data(),
                     server_to_client.size());
  return tag;
}

bool confirmation_valid(const Key& server_to_client, std::uint64_t nonce, std::uint32_t connection_id,
                        std::uint8_t accepted_flags, const challenge::Confirmation& received) {
  const challenge::Confirmation expected = confirmation(server_to_client, nonce, connection_id, accepted_flags);
  return sodium_memcmp(expected.data(), received.data(), expected.size()) == 0;
}

}  // namespace tickwire::transport::handshake
