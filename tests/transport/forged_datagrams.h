#pragma once
// What an attacker who cannot read a session's traffic puts on the wire to
// harm it, built byte by byte (ENet's headers stay out of tests):
//  - datagrams in the unauthenticated framing sessions used to have: ENet's
//    16-bit peer header (peer slot, 2-bit session id) and a command or a
//    session payload behind it. An off-path attacker can try every slot and
//    session: 4096 x 4 datagrams.
//  - sealed datagrams (docs/wire-format.md, "Sealed datagram") under
//    guessed connection ids and packet numbers, with a body of the
//    attacker's choice and a tag it cannot compute.
// GuessSpray sends both from a spoofed source within a datagram budget.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "raw_ip.h"
#include "tickwire/transport/address.h"

namespace tickwire::transport::enet_testing {

inline constexpr std::uint16_t kEnetSlots = 4096;  // 12 bits of peer slot
inline constexpr std::uint8_t kEnetSessions = 4;   // 2 bits of session id

// ENet's peer header with a sent time, then `command`.
std::vector<std::uint8_t> enet_datagram(std::uint16_t slot, std::uint8_t session,
                                        std::span<const std::uint8_t> command);
// DISCONNECT, unsequenced as enet_peer_disconnect_now sends it: acted on
// at once, carrying the reason code `data`.
std::vector<std::uint8_t> enet_disconnect_command(std::uint32_t data);
// PING, which the receiver acknowledges to the claimed source.
std::vector<std::uint8_t> enet_ping_command(std::uint16_t sequence);
// A session datagram as it was before sealing: ENet's peer header with its
// "compressed" flag, then the payload.
std::vector<std::uint8_t> legacy_session_datagram(std::uint16_t slot, std::uint8_t session,
                                                  std::span<const std::uint8_t> payload);

// The sealed layout with a body and tag of the caller's choice:
// 0b01K_PPPPP | connection id (LE) | packet number bits 7..0 | body | tag.
inline constexpr std::size_t kSealedHeaderSize = 6;
inline constexpr std::size_t kSealedTagSize = 16;
std::vector<std::uint8_t> sealed_datagram(bool session_payload, std::uint32_t connection_id,
                                          std::uint64_t packet_number, std::span<const std::uint8_t> body,
                                          std::span<const std::uint8_t> tag);
// True for the sealed layout's first byte (0x40..0x7F) on a datagram long
// enough to hold a header and a tag.
bool looks_sealed(std::span<const std::uint8_t> datagram);

// What the attacker wants the victim's peer to act on.
struct ForgedContent {
  // The unauthenticated framing for one slot and session guess.
  std::function<std::vector<std::uint8_t>(std::uint16_t slot, std::uint8_t session)> legacy;
  // The body of a sealed guess (written as a plaintext session would have
  // it), and whether it is a session payload (K = 1) or ENet's (K = 0).
  std::vector<std::uint8_t> sealed_body;
  bool sealed_session_payload = true;
  // The slots tried (0..slots-1; an attacker who knows the join order
  // needs few) and how many times the whole slot and session sweep runs.
  std::uint16_t slots = kEnetSlots;
  std::uint64_t legacy_sweeps = 1;
};

struct SprayResult {
  std::uint64_t sent = 0;
  std::uint64_t refused = 0;  // by the local kernel
  std::uint64_t legacy = 0;
  std::uint64_t sealed = 0;
};

// The budget of spoofed datagrams per attack: TICKWIRE_SPOOF_BUDGET when
// set (a long run: 1000000), otherwise 65536 to keep CI fast.
std::uint64_t spoof_budget();

// `address` as raw IPv4 sockets name it; throws for a host that is not a
// dotted IPv4 address, which a test's loopback session never has.
spoof::Ipv4Endpoint raw_endpoint(const Address& address);

// Spends `budget` datagrams from `from` to `to`: every ENet slot and session
// first (as far as the budget goes), then sealed guesses under random
// connection ids and packet numbers, the two kinds of body alternating.
// `between` runs every `batch` datagrams so the receivers keep reading
// (the kernel would otherwise drop what their sockets cannot hold).
SprayResult spray(spoof::RawSender& socket, const Address& from, const Address& to, const ForgedContent& content,
                  std::uint64_t budget, std::mt19937_64& rng, const std::function<void()>& between,
                  std::size_t batch = 256);

}  // namespace tickwire::transport::enet_testing
