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
//   HELLO  (nonce, padded) ------->  stateless: answers with a cookie
//          <------- CHALLENGE (nonce, cookie = keyed hash of address, nonce, time)
//   RESPONSE (nonce, cookie, token) -> checks the cookie (and the token):
//          <------- ACCEPTED | DENIED(reason)      address admitted for a while
//   ENet CONNECT ----------------->  passed to ENet only from admitted addresses
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
inline constexpr std::uint8_t kVersion = 1;

enum class Kind : std::uint8_t { kHello = 1, kChallenge = 2, kResponse = 3, kAccepted = 4, kDenied = 5 };

inline constexpr std::size_t kPrefixSize = kMagic.size() + 2;  // magic, version, kind
inline constexpr std::size_t kNonceSize = 8;
inline constexpr std::size_t kCookieSize = 16;
// A HELLO is padded to this size so that the CHALLENGE, the largest answer
// an unvalidated address can get, is smaller.
inline constexpr std::size_t kHelloSize = 64;
inline constexpr std::size_t kMaxTokenSize = 1024;
inline constexpr std::size_t kMaxDatagramSize = kPrefixSize + kNonceSize + kCookieSize + 2 + kMaxTokenSize;

using Cookie = std::array<std::uint8_t, kCookieSize>;

struct Hello {
  std::uint64_t nonce = 0;  // chosen by the client; echoed in every answer
};
struct ChallengeMsg {
  std::uint64_t nonce = 0;
  Cookie cookie{};
};
struct Response {
  std::uint64_t nonce = 0;
  Cookie cookie{};
  std::vector<std::uint8_t> token;  // empty when the client has none
};
struct Accepted {
  std::uint64_t nonce = 0;
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
// wrong length, an unknown kind, a token over kMaxTokenSize, a HELLO that is
// not padded to kHelloSize or whose padding is not zero.
std::optional<Message> decode(std::span<const std::uint8_t> datagram);

// The bytes of one message (a ForeignHello encodes with its version, for
// tests of other versions).
std::vector<std::uint8_t> encode(const Message& message);

}  // namespace tickwire::transport::challenge
