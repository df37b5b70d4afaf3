#pragma once
// A server's identity key: an Ed25519 key pair whose public half clients
// may pin. The server signs every handshake with it (docs/security.md), so a
// client that pins the public key refuses anyone in the middle, even on a
// server that takes no connect tokens.
//
// Keys travel as lower-case hexadecimal (64 digits), in files and on
// command lines: `tickwire-token identity` writes a pair.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tickwire/core/result.h"

namespace tickwire::transport {

inline constexpr std::size_t kServerKeySize = 32;

// What a client pins: the public half.
struct ServerPublicKey {
  std::array<std::uint8_t, kServerKeySize> bytes{};

  // 64 hexadecimal digits (whitespace around them ignored).
  static Result<ServerPublicKey> from_hex(std::string_view text);
  std::string to_hex() const;
  bool operator==(const ServerPublicKey&) const = default;
};

// What a server keeps secret: the 32-byte seed the key pair grows from.
struct ServerIdentity {
  std::array<std::uint8_t, kServerKeySize> seed{};

  // A fresh random identity. Stops the process if libsodium cannot start
  // (no random source): there is no safe key to return instead.
  static ServerIdentity generate();
  static Result<ServerIdentity> from_hex(std::string_view text);
  // A file holding the seed's hex digits (a trailing newline is fine).
  // Errors name the file and what is wrong with it.
  static Result<ServerIdentity> load(const std::string& path);
  std::string to_hex() const;
  ServerPublicKey public_key() const;
};

}  // namespace tickwire::transport
