#pragma once
// What a client sees of its session, sent to the server once a second so
// that an operator watching the server sees what players see (prediction
// failures are only visible on the client). Claims, not measurements: the
// server keeps them apart from its own figures, accepts only totals that
// grow, and every field is bounded on the wire. Wire format:
// docs/wire-format.md ("Session packets").

#include <cstdint>

#include "tickwire/core/bit_stream.h"

namespace tickwire {

struct ClientReport {
  std::uint32_t mispredictions = 0;      // running total
  std::uint32_t rollbacks = 0;           // running total
  std::uint32_t hard_resets = 0;         // running total of time jumps
  std::uint16_t max_rollback_depth = 0;  // ticks, 0..1024
  std::uint32_t rtt_us = 0;              // the client's smoothed round trip, 0..10 s

  bool operator==(const ClientReport&) const = default;
};

inline constexpr std::uint16_t kMaxReportedRollbackDepth = 1024;
inline constexpr std::uint32_t kMaxReportedRttMicros = 10'000'000;

template <class Stream>
bool serialize(Stream& s, ClientReport& r) {
  return s.bits(r.mispredictions, 32) && s.bits(r.rollbacks, 32) && s.bits(r.hard_resets, 32) &&
         s.integer(r.max_rollback_depth, std::uint16_t{0}, kMaxReportedRollbackDepth) &&
         s.integer(r.rtt_us, std::uint32_t{0}, kMaxReportedRttMicros);
}

}  // namespace tickwire
