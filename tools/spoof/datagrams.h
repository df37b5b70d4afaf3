#pragma once
// The datagrams a spoofer sends: what a client at a forged address could
// put on the wire before it has proven that it receives there. Each kind
// probes a different path of the server's address validation.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

namespace tickwire::spoof {

enum class Kind : std::uint8_t {
  kConnect,   // a raw ENet CONNECT, as a spoofed ENet client sends it
  kHello,     // a well-formed challenge HELLO
  kResponse,  // a RESPONSE to a challenge the source never received
  kGarbage,   // random bytes, sometimes behind the challenge magic
};

inline constexpr std::size_t kKindCount = 4;
inline constexpr std::array<Kind, kKindCount> kAllKinds{Kind::kConnect, Kind::kHello, Kind::kResponse, Kind::kGarbage};

const char* to_string(Kind kind);
std::optional<Kind> kind_from_string(std::string_view name);
inline std::size_t index_of(Kind kind) { return static_cast<std::size_t>(kind); }

using Rng = std::mt19937_64;

// ENet 1.3 CONNECT: protocol header, command header and connect body.
inline constexpr std::size_t kEnetConnectSize = 52;
// ENet's "no peer assigned yet" id, which every CONNECT carries.
inline constexpr std::uint16_t kEnetNoPeerId = 0x0FFF;
inline constexpr std::uint16_t kEnetMaxOutgoingPeerId = kEnetNoPeerId - 1;

struct EnetConnectFields {
  std::uint16_t sent_time = 0;
  std::uint16_t outgoing_peer_id = 0;  // 0..kEnetMaxOutgoingPeerId
  std::uint32_t connect_id = 0;
};

// Built by hand in network byte order: tools never include ENet.
std::vector<std::uint8_t> enet_connect(const EnetConnectFields& fields);

inline constexpr std::size_t kMaxGarbageSize = 1200;

// One datagram of `kind` with its random parts drawn from `rng`;
// `sent_time` is the CONNECT's timestamp (ignored by the other kinds).
std::vector<std::uint8_t> make_datagram(Kind kind, Rng& rng, std::uint16_t sent_time);

std::vector<std::uint8_t> random_connect(Rng& rng, std::uint16_t sent_time);
std::vector<std::uint8_t> random_hello(Rng& rng);
// A random cookie, and half of the time a random token of 1..kMaxTokenSize bytes.
std::vector<std::uint8_t> random_response(Rng& rng);
// 1..kMaxGarbageSize random bytes; a quarter start with the challenge magic
// so that they reach the challenge decoder instead of ENet.
std::vector<std::uint8_t> random_garbage(Rng& rng);

}  // namespace tickwire::spoof
