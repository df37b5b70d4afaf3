#pragma once
// The bytes every Tickwire packet starts with. Wire format and receiver
// obligations: docs/wire-format.md.
//
// Handshake messages (reliable channel) open with a prefix that no future
// version may change (protocol id, version, type), so any two versions can
// recognise each other and fail with "version mismatch" instead of decoding
// garbage. Packets on the unreliable channel flow only after a Welcome, so
// both ends already agree on the version: they open with the packet type
// alone, then the sequence, the acks and how long the newest acknowledged
// packet was held (the round-trip sample). Inputs go every tick, so every
// bit here is paid 60 times a second.

#include <bit>
#include <cstdint>
#include <optional>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/result.h"
#include "tickwire/core/sequence.h"
#include "tickwire/core/time.h"

namespace tickwire {

inline constexpr std::uint16_t kProtocolId = 0x5457;  // "TW"
// 2: the compact unreliable header (type alone, full acks in one bit, a
// hold instead of send and echo times) and session datagrams.
// 3: a snapshot's models may start from a state older than its baseline.
// 4: a spawn's generation is the world's modulo 65,536 (a larger one is
// malformed).
// 5: the Hello carries the schema hash and the codebook hash apart, so a
// denial says which differs.
inline constexpr std::uint8_t kProtocolVersion = 5;

enum class PacketType : std::uint8_t {
  kHello = 1,      // client -> server, reliable: protocol version and fingerprint
  kWelcome = 2,    // server -> client, reliable: client id, rates, current tick
  kKeepAlive = 3,  // either way, unreliable: acks and holds when nothing else is due
  kInput = 4,      // client -> server, unreliable
  kSnapshot = 5,   // server -> client, unreliable
  kReport = 6,     // client -> server, unreliable: what the client sees, once a second
};
inline constexpr std::uint8_t kMaxPacketType = 6;
// Bits of the type in the unreliable header: room for types up to 7.
inline constexpr int kUnreliableTypeBits = 3;

const char* to_string(PacketType type);

struct PacketPrefix {
  std::uint16_t protocol_id = kProtocolId;
  std::uint8_t version = kProtocolVersion;
  PacketType type = PacketType::kKeepAlive;
};

// Checks protocol id and version after a prefix decoded: kBadProtocolId or
// kBadVersion, so the caller can drop the packet or deny the peer.
Result<void> check_prefix(const PacketPrefix& prefix);

// The longest a peer may claim to have held our packet before answering
// it. Longer holds make the sample useless for RTT and are rejected.
inline constexpr std::uint64_t kMaxHoldMicros = 10'000'000;
// Bits of the hold's width: 24 bits hold kMaxHoldMicros.
inline constexpr int kHoldWidthBits = 5;
inline constexpr int kMaxHoldWidth = 24;
static_assert(std::bit_width(kMaxHoldMicros) <= static_cast<unsigned>(kMaxHoldWidth));

// How long the sender held the peer's packet `ack` (its newest) before this
// send. The peer knows when it sent `ack`: RTT = now - sent - hold.
struct Hold {
  std::uint32_t hold_us = 0;
};

struct PacketHeader {
  PacketPrefix prefix;
  Sequence sequence;           // this packet's number on the unreliable channel
  Sequence ack;                // newest sequence received from the peer
  std::uint32_t ack_bits = 0;  // bit i: ack - 1 - i was received too
  // Set in the first packet after `ack` arrived: one round-trip sample per
  // packet received, none repeated.
  std::optional<Hold> hold;
};

inline constexpr std::uint32_t kAllAcked = 0xFFFF'FFFFU;

template <class Stream>
bool serialize(Stream& s, PacketPrefix& p) {
  std::uint32_t type = static_cast<std::uint32_t>(p.type);
  if (!s.integer(p.protocol_id, std::uint16_t{0}, std::uint16_t{0xFFFF})) return false;
  if (!s.integer(p.version, std::uint8_t{0}, std::uint8_t{0xFF})) return false;
  if (!s.bits(type, 8)) return false;
  if constexpr (Stream::kReading) {
    // An unknown type is not decodable at all: the rest of the layout
    // depends on it. The version check comes later, in check_prefix.
    if (type == 0 || type > kMaxPacketType) return s.fail(ErrorCode::kBadPacketType);
    p.type = static_cast<PacketType>(type);
  }
  return true;
}

// The width of the value, then the bits below its leading one: a 16 ms hold
// costs 5 + 13 bits. Canonical: each value has one coding.
template <class Stream>
bool serialize(Stream& s, Hold& h) {
  std::uint32_t width = static_cast<std::uint32_t>(std::bit_width(h.hold_us));
  if constexpr (!Stream::kReading) {
    if (h.hold_us > kMaxHoldMicros) return s.fail(ErrorCode::kOutOfRange, "hold over its bound");
  }
  if (!s.bits(width, kHoldWidthBits)) return false;
  if constexpr (Stream::kReading) {
    if (width > static_cast<std::uint32_t>(kMaxHoldWidth)) return s.fail(ErrorCode::kOutOfRange);
  }
  std::uint32_t low = width > 1 ? h.hold_us & ((1U << (width - 1)) - 1U) : 0;
  if (width > 1 && !s.bits(low, static_cast<int>(width) - 1)) return false;
  if constexpr (Stream::kReading) {
    h.hold_us = width == 0 ? 0 : (1U << (width - 1)) | low;
    if (h.hold_us > kMaxHoldMicros) return s.fail(ErrorCode::kOutOfRange);
  }
  return true;
}

template <class Stream>
bool serialize(Stream& s, PacketHeader& h) {
  std::uint32_t type = static_cast<std::uint32_t>(h.prefix.type);
  std::uint32_t seq = h.sequence.value();
  std::uint32_t ack = h.ack.value();
  bool all_acked = h.ack_bits == kAllAcked;
  bool has_hold = h.hold.has_value();
  if (!s.bits(type, kUnreliableTypeBits)) return false;
  if constexpr (Stream::kReading) {
    if (type == 0 || type > kMaxPacketType) return s.fail(ErrorCode::kBadPacketType);
    // Only a welcomed peer's packets are read this way: the handshake has
    // settled protocol and version.
    h.prefix = PacketPrefix{kProtocolId, kProtocolVersion, static_cast<PacketType>(type)};
  }
  if (!s.bits(seq, 16) || !s.bits(ack, 16) || !s.boolean(all_acked)) return false;
  if (all_acked) {
    if constexpr (Stream::kReading) h.ack_bits = kAllAcked;
  } else {
    if (!s.bits(h.ack_bits, 32)) return false;
    // All ones has its one-bit code; a second coding would not be canonical.
    if constexpr (Stream::kReading) {
      if (h.ack_bits == kAllAcked) return s.fail(ErrorCode::kMalformed, "full acks spelled out");
    }
  }
  if (!s.boolean(has_hold)) return false;
  if constexpr (Stream::kReading) {
    h.sequence = Sequence(static_cast<std::uint16_t>(seq));
    h.ack = Sequence(static_cast<std::uint16_t>(ack));
    h.hold.reset();
    if (has_hold) h.hold.emplace();
  }
  if (has_hold && !serialize(s, *h.hold)) return false;
  return true;
}

}  // namespace tickwire
