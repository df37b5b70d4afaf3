#pragma once
// The address-validation exchange that runs before ENet's own handshake.
//
// ENet allocates a peer slot for the first CONNECT it sees and retransmits
// to the claimed source until timeout, so a spoofed source could fill the
// server and make it send to victims. The server therefore lets no
// datagram reach ENet's connect path until the source has proven it
// receives at its address:
//
//   client                          server
//   HELLO  (nonce, client kx key, padded) -> stateless: answers with a cookie
//          <------- CHALLENGE (nonce, cookie, server kx key of the time bucket)
//   RESPONSE (nonce, cookie, client kx key, token) -> checks the cookie (and the token),
//          <------- ACCEPTED(connection id, signature, confirmation) | DENIED(reason)
//   ENet CONNECT ----------------->  passed to ENet only from admitted addresses
//
// The exchange also agrees the session's keys (version 2, docs/security.md):
// both sides run an X25519 key exchange (crypto_kx), mixed with the connect
// token's session key when there is a token. The server signs the exchange
// with its identity key and proves with a confirmation tag that it derived
// the same keys. It keeps no state for an address until the address proves
// it receives there: its key pairs change with the cookie's time bucket
// only, so a CHALLENGE costs no public-key operation.
//
// Every answer is smaller than the datagram it answers, so the server never
// sends an unvalidated address more bytes than it received from it.
// Byte layout and receiver obligations: docs/wire-format.md.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "tickwire/transport/transport.h"

namespace tickwire::transport::challenge {

// The first byte has ENet's "compressed" header flag set. Tickwire never
// enables ENet compression, so no ENet datagram of ours can start this way
// and the two kinds of traffic share a socket without ambiguity.
inline constexpr std::array<std::uint8_t, 3> kMagic{0xC7, 0x54, 0x57};
inline constexpr std::uint8_t kVersion = 2;

enum class Kind : std::uint8_t { kHello = 1, kChallenge = 2, kResponse = 3, kAccepted = 4, kDenied = 5 };

inline constexpr std::size_t kPrefixSize = kMagic.size() + 2;  // magic, version, kind
inline constexpr std::size_t kNonceSize = 8;
inline constexpr std::size_t kCookieSize = 16;
inline constexpr std::size_t kPublicKeySize = 32;     // an X25519 (crypto_kx) public key
inline constexpr std::size_t kSignatureSize = 64;     // Ed25519
inline constexpr std::size_t kConfirmationSize = 16;  // keyed BLAKE2b-128
// A HELLO is padded to this size so that the CHALLENGE, the largest answer
// an unvalidated address can get, is smaller.
inline constexpr std::size_t kHelloSize = 64;
// A RESPONSE is padded to at least this size so that the ACCEPTED is smaller.
inline constexpr std::size_t kMinResponseSize = 112;
inline constexpr std::size_t kMaxTokenSize = 1024;
inline constexpr std::size_t kResponseFixedSize = kPrefixSize + kNonceSize + kCookieSize + 1 + kPublicKeySize + 2;
inline constexpr std::size_t kMaxDatagramSize = kResponseFixedSize + kMaxTokenSize;

// Bits of the flags byte of HELLO, RESPONSE and ACCEPTED; the others are 0.
inline constexpr std::uint8_t kFlagPlaintext = 0x01;  // an unencrypted session (EnetConfig::plaintext)
// In HELLO and RESPONSE: the client's CPU has AES instructions, so it can
// seal with AES-256-GCM. In ACCEPTED: the server chose AES-256-GCM (only
// when the client offered it and its own CPU has them too); without it the
// session seals with ChaCha20-Poly1305. A plaintext session ignores it.
inline constexpr std::uint8_t kFlagAes256Gcm = 0x02;
inline constexpr std::uint8_t kKnownFlags = kFlagPlaintext | kFlagAes256Gcm;

using Cookie = std::array<std::uint8_t, kCookieSize>;
using PublicKey = std::array<std::uint8_t, kPublicKeySize>;
using Signature = std::array<std::uint8_t, kSignatureSize>;
using Confirmation = std::array<std::uint8_t, kConfirmationSize>;

struct Hello {
  std::uint64_t nonce = 0;  // chosen by the client; echoed in every answer
  std::uint8_t flags = 0;
  PublicKey client_key{};  // the client's key exchange key for this exchange
};
struct ChallengeMsg {
  std::uint64_t nonce = 0;
  Cookie cookie{};
  PublicKey server_key{};  // the server's key exchange key of the cookie's time bucket
};
struct Response {
  std::uint64_t nonce = 0;
  Cookie cookie{};
  std::uint8_t flags = 0;  // as in the HELLO: the cookie covers both
  PublicKey client_key{};
  std::vector<std::uint8_t> token{};  // empty when the client has none
};
struct Accepted {
  std::uint64_t nonce = 0;
  std::uint32_t connection_id = 0;  // never 0 from an honest server
  // The plaintext bit as requested; kFlagAes256Gcm when the server chose
  // that cipher.
  std::uint8_t flags = 0;
  // By the server's identity key over the exchange (docs/security.md).
  Signature signature{};
  // Keyed with the server-to-client key: the server derived our keys.
  // Zeros in a plaintext session.
  Confirmation confirmation{};
};
struct Denied {
  std::uint64_t nonce = 0;
  DisconnectReason reason = DisconnectReason::kUnknown;
};
// A HELLO of another version: answered with a DENIED(kVersionMismatch) so a
// mismatched client learns why instead of timing out.
struct ForeignHello {
  std::uint64_t nonce = 0;
  std::uint8_t version = 0;
};

using Message = std::variant<Hello, ChallengeMsg, Response, Accepted, Denied, ForeignHello>;

// True when the datagram belongs to this exchange (starts with kMagic),
// whether or not it is well formed; such datagrams never reach ENet.
bool is_challenge_datagram(std::span<const std::uint8_t> datagram);

// Nothing for a datagram that is not exactly one well-formed message: a
// wrong length, an unknown kind, unknown flag bits, a token over
// kMaxTokenSize, a HELLO not padded to kHelloSize or a RESPONSE not padded
// to kMinResponseSize, or padding that is not zero. A HELLO of another
// version only needs kHelloSize bytes. Never reads outside `datagram`.
std::optional<Message> decode(std::span<const std::uint8_t> datagram);

// The bytes of one message (a ForeignHello encodes with its version, for
// tests of other versions).
std::vector<std::uint8_t> encode(const Message& message);

}  // namespace tickwire::transport::challenge
