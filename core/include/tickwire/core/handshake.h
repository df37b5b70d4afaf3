#pragma once
// The connection handshake, carried on the reliable channel. Wire format and
// receiver obligations: docs/wire-format.md.
//
//   client                               server
//   Hello {version, fingerprint, name} ->
//                                     <- Welcome {client id, rates, tick}
//                                        or a disconnect whose reason is the
//                                        denial (version or fingerprint
//                                        mismatch, server full)

#include <cstdint>
#include <string>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/core/tick.h"

namespace tickwire {

inline constexpr std::size_t kMaxClientNameLength = 32;

// The protocol fingerprint: the protocol version and a hash of the game's
// registered schema. Two builds that would misread each other's snapshots
// differ here and are denied at connect, not corrupted later.
std::uint64_t protocol_fingerprint(std::uint8_t version, std::uint64_t schema_hash);

struct Hello {
  std::uint64_t fingerprint = 0;
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

template <class Stream>
bool serialize(Stream& s, Hello& h) {
  std::uint32_t lo = static_cast<std::uint32_t>(h.fingerprint);
  std::uint32_t hi = static_cast<std::uint32_t>(h.fingerprint >> 32);
  if (!s.bits(lo, 32) || !s.bits(hi, 32)) return false;
  if (!s.string(h.client_name, kMaxClientNameLength)) return false;
  if constexpr (Stream::kReading) h.fingerprint = (std::uint64_t{hi} << 32) | lo;
  return true;
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
