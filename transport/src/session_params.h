#pragma once
// What the handshake hands the sealed-datagram layer for one session
// (docs/security.md): the connection id both ends write on every datagram,
// and the two keys, one for each direction. Kept free of ENet and of
// libsodium's headers.

#include <array>
#include <cstdint>

namespace tickwire::transport {

inline constexpr std::size_t kSessionKeySize = 32;

struct SessionKeys {
  std::array<std::uint8_t, kSessionKeySize> send{};     // seals what this end sends
  std::array<std::uint8_t, kSessionKeySize> receive{};  // opens what the other end sends
};

struct SessionParams {
  // Chosen at random by the server, never 0, unique among its live sessions.
  std::uint32_t connection_id = 0;
  // A debugging session without encryption (EnetConfig::plaintext on both
  // ends); keys are unused then.
  bool plaintext = false;
  SessionKeys keys;
};

}  // namespace tickwire::transport
