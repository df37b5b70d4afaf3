#pragma once
// The bytes every Tickwire packet starts with. Wire format and receiver
// obligations: docs/wire-format.md.
//
// Every packet opens with a prefix that no future version may change
// (protocol id, version, type), so any two versions can recognise each other
// and fail with "version mismatch" instead of decoding garbage. Packets on
// the unreliable channel follow the prefix with sequence, acks and the
// timestamps the time system feeds on.

#include <cstdint>
#include <optional>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/result.h"
#include "tickwire/core/sequence.h"
#include "tickwire/core/time.h"

namespace tickwire {

inline constexpr std::uint16_t kProtocolId = 0x5457;  // "TW"
inline constexpr std::uint8_t kProtocolVersion = 1;

enum class PacketType : std::uint8_t {
  kHello = 1,      // client -> server, reliable: protocol version and fingerprint
  kWelcome = 2,    // server -> client, reliable: client id, rates, current tick
  kKeepAlive = 3,  // either way, unreliable: timestamps when nothing else is due
  kInput = 4,      // client -> server, unreliable
  kSnapshot = 5,   // server -> client, unreliable
  kReport = 6,     // client -> server, unreliable: what the client sees, once a second
};
inline constexpr std::uint8_t kMaxPacketType = 6;

const char* to_string(PacketType type);

struct PacketPrefix {
  std::uint16_t protocol_id = kProtocolId;
  std::uint8_t version = kProtocolVersion;
  PacketType type = PacketType::kKeepAlive;
};

// Checks protocol id and version after a prefix decoded: kBadProtocolId or
// kBadVersion, so the caller can drop the packet or deny the peer.
Result<void> check_prefix(const PacketPrefix& prefix);

// The longest a peer may claim to have held our timestamp before echoing
// it. Longer holds make the echo useless for RTT and are rejected.
inline constexpr std::uint64_t kMaxEchoHoldMicros = 10'000'000;

// Timestamps are the low 32 bits of the sender's Time in microseconds. They
// wrap every 71 minutes; only differences between nearby stamps are used
// (see wrapping_elapsed).
struct Echo {
  std::uint32_t time_us = 0;  // the newest send time we received from the peer
  std::uint32_t hold_us = 0;  // how long we held it before this send
};

struct PacketHeader {
  PacketPrefix prefix;
  Sequence sequence;           // this packet's number on the unreliable channel
  Sequence ack;                // newest sequence received from the peer
  std::uint32_t ack_bits = 0;  // bit i: ack - 1 - i was received too
  std::uint32_t send_time_us = 0;
  std::optional<Echo> echo;
};

inline std::uint32_t wire_time(Time t) { return static_cast<std::uint32_t>(t.micros()); }

// Microseconds from stamp `earlier` to stamp `later`, across a wrap.
inline std::uint32_t wrapping_elapsed(std::uint32_t later, std::uint32_t earlier) { return later - earlier; }

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

template <class Stream>
bool serialize(Stream& s, Echo& e) {
  std::uint64_t hold = e.hold_us;
  if (!s.bits(e.time_us, 32) || !s.varint(hold)) return false;
  if constexpr (Stream::kReading) {
    if (hold > kMaxEchoHoldMicros) return s.fail(ErrorCode::kOutOfRange);
    e.hold_us = static_cast<std::uint32_t>(hold);
  }
  return true;
}

template <class Stream>
bool serialize(Stream& s, PacketHeader& h) {
  std::uint32_t seq = h.sequence.value();
  std::uint32_t ack = h.ack.value();
  bool has_echo = h.echo.has_value();
  if (!serialize(s, h.prefix)) return false;
  if (!s.bits(seq, 16) || !s.bits(ack, 16) || !s.bits(h.ack_bits, 32)) return false;
  if (!s.bits(h.send_time_us, 32) || !s.boolean(has_echo)) return false;
  if constexpr (Stream::kReading) {
    h.sequence = Sequence(static_cast<std::uint16_t>(seq));
    h.ack = Sequence(static_cast<std::uint16_t>(ack));
    if (has_echo) h.echo.emplace();
  }
  if (has_echo && !serialize(s, *h.echo)) return false;
  return true;
}

}  // namespace tickwire
