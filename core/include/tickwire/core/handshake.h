#pragma once
// The connection handshake, carried on the reliable channel. Wire format and
// receiver obligations: docs/wire-format.md.
//
//   client                               server
//   Hello {version, fingerprint, name} ->
//                                     <- Welcome {client id, rates, tick}
//                                        or a disconnect whose reason is the
//                                        denial (version, schema or
//                                        codebook mismatch, server full)

#include <cstdint>
#include <string>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/core/tick.h"

namespace tickwire {

inline constexpr std::size_t kMaxClientNameLength = 32;

// The protocol fingerprint: with the protocol version (the prefix's), what
// two ends must share to read each other's snapshots. Two builds that would
// misread each other differ here and are denied at connect, not corrupted
// later, each part with its own reason: another version with "version
// mismatch", another schema with "game schema mismatch", another codebook
// (or one end without) with "snapshot codebook mismatch".
struct ProtocolFingerprint {
  std::uint64_t schema_hash = 0;    // the game's schema (snapshot::Schema::hash)
  std::uint64_t codebook_hash = 0;  // the snapshot codebook's; 0: none (adaptive models)
  bool operator==(const ProtocolFingerprint&) const = default;
};

struct Hello {
  ProtocolFingerprint fingerprint;
  std::string client_name;
};

struct Welcome {
  std::uint32_t client_id = 0;
  std::uint16_t tick_rate = 0;
  std::uint16_t send_rate = 0;
  Tick server_tick;
};

// Highest rate a peer may announce; matches NetworkTime::kMaxTickRate.
inline constexpr std::uint16_t kMaxWireTickRate = 1000;

// 64 bits, low half first. Every value is valid: a hash.
template <class Stream>
bool serialize_u64(Stream& s, std::uint64_t& value) {
  std::uint32_t lo = static_cast<std::uint32_t>(value);
  std::uint32_t hi = static_cast<std::uint32_t>(value >> 32);
  if (!s.bits(lo, 32) || !s.bits(hi, 32)) return false;
  if constexpr (Stream::kReading) value = (std::uint64_t{hi} << 32) | lo;
  return true;
}

template <class Stream>
bool serialize(Stream& s, Hello& h) {
  if (!serialize_u64(s, h.fingerprint.schema_hash) || !serialize_u64(s, h.fingerprint.codebook_hash)) return false;
  return s.string(h.client_name, kMaxClientNameLength);
}

template <class Stream>
bool serialize(Stream& s, Welcome& w) {
  std::uint32_t tick = w.server_tick.value();
  if (!s.bits(w.client_id, 32)) return false;
  if (!s.integer(w.tick_rate, std::uint16_t{1}, kMaxWireTickRate)) return false;
  if (!s.integer(w.send_rate, std::uint16_t{1}, kMaxWireTickRate)) return false;
  if (!s.bits(tick, 32)) return false;
  if constexpr (Stream::kReading) {
    // The send rate divides the tick rate (DESIGN: snapshots go out every
    // Nth tick); anything else is a server we cannot follow.
    if (w.send_rate > w.tick_rate || w.tick_rate % w.send_rate != 0) return s.fail(ErrorCode::kOutOfRange);
    w.server_tick = Tick(tick);
  }
  return true;
}

}  // namespace tickwire
