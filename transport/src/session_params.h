#pragma once
// What the handshake hands the sealed-datagram layer for one session
// (docs/security.md): the connection id both ends write on every datagram,
// the cipher both ends seal with, and the two keys, one for each direction.
// Kept free of ENet and of libsodium's headers.

#include <array>
#include <cstdint>

namespace tickwire::transport {

inline constexpr std::size_t kSessionKeySize = 32;

struct SessionKeys {
  std::array<std::uint8_t, kSessionKeySize> send{};     // seals what this end sends
  std::array<std::uint8_t, kSessionKeySize> receive{};  // opens what the other end sends
};

// The AEAD a session seals with. Both take 32-byte keys, a 12-byte nonce
// and give a 16-byte tag, so the datagram's layout is the same. The
// handshake picks AES-256-GCM only when both ends' CPUs have AES
// instructions (it is cheaper there, and only safe to run there).
enum class SessionCipher : std::uint8_t { kChaCha20Poly1305, kAes256Gcm };

inline const char* to_string(SessionCipher cipher) {
  return cipher == SessionCipher::kAes256Gcm ? "AES-256-GCM" : "ChaCha20-Poly1305";
}

struct SessionParams {
  // Chosen at random by the server, never 0, unique among its live sessions.
  std::uint32_t connection_id = 0;
  // A debugging session without encryption (EnetConfig::plaintext on both
  // ends); keys are unused then.
  bool plaintext = false;
  // Ignored in a plaintext session.
  SessionCipher cipher = SessionCipher::kChaCha20Poly1305;
  SessionKeys keys;
};

}  // namespace tickwire::transport
