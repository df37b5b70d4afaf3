#pragma once
// The plain-bit header in front of every snapshot body (docs/wire-format.md,
// "Snapshot"). It names the snapshot tick, the baseline the body is a delta
// against, the reference used for motion prediction and, when not the
// baseline's, the state whose models the body starts from, so a receiver
// can check that it holds them all before it decodes anything else.
//
// Ticks are sent compactly: with a baseline, only the baseline's low 16
// bits (the receiver keeps far fewer than 65536 ticks, so they name one
// state unambiguously) and the distances to the snapshot and reference
// ticks; without one, the full 32-bit tick.

#include <bit>
#include <cstdint>

#include "tickwire/core/bit_stream.h"

namespace tickwire::snapshot {

// The largest baseline age and reference distance the format can carry;
// a receiver's own history bound is usually much smaller.
inline constexpr std::uint32_t kMaxHistoryTicks = 4096;

struct SnapshotHeader {
  bool has_baseline = false;
  std::uint32_t tick = 0;          // without a baseline
  std::uint16_t baseline_low = 0;  // with one: its tick's low 16 bits
  std::uint32_t age = 0;           // snapshot tick - baseline tick, >= 1
  bool has_reference = false;
  std::uint32_t reference_gap = 0;   // baseline tick - reference tick, >= 1
  bool has_reference2 = false;       // a second, older reference: second-order prediction
  std::uint32_t reference2_gap = 0;  // reference tick - second reference tick, >= 1
  bool has_body = false;             // false: nothing changed, nothing spawned
  bool static_models = false;        // body coded with fixed, non-adaptive codes
  bool fresh_models = false;         // adaptive models start at one half, not where the baseline's left them
  // The models start where an older state's packet left them, not the
  // baseline's (the sender no longer holds the baseline's: see
  // SenderConfig::max_models_in_flight).
  bool models_elsewhere = false;
  std::uint32_t models_gap = 0;  // baseline tick - that state's tick, >= 1
};

// Elias gamma for v in [1, limit]: the bit length in unary, then the bits
// below the leading one. Small distances (the usual 1 to 8 ticks) take 1
// to 7 bits.
template <class Stream>
bool serialize_gamma(Stream& s, std::uint32_t& v, std::uint32_t limit) {
  const int max_length = static_cast<int>(std::bit_width(limit));
  int length = 0;
  if constexpr (Stream::kReading) {
    std::uint32_t more = 0;
    for (;;) {
      if (!s.bits(more, 1)) return false;
      if (more == 0) break;
      if (++length >= max_length) return s.fail(ErrorCode::kOutOfRange, "gamma code longer than its bound");
    }
    std::uint32_t low = 0;
    if (length > 0 && !s.bits(low, length)) return false;
    v = (1U << length) | low;
    if (v > limit) return s.fail(ErrorCode::kOutOfRange, "gamma value above its bound");
    return true;
  } else {
    if (v < 1 || v > limit) return s.fail(ErrorCode::kOutOfRange, "gamma value outside [1, limit]");
    length = static_cast<int>(std::bit_width(v)) - 1;
    for (int i = 0; i < length; ++i) {
      std::uint32_t one = 1;
      if (!s.bits(one, 1)) return false;
    }
    std::uint32_t zero = 0;
    if (!s.bits(zero, 1)) return false;
    std::uint32_t low = v & ((1U << length) - 1U);
    return length == 0 || s.bits(low, length);
  }
}

// References and coding flags only matter to a body, so a snapshot without
// one (an idle world) leaves them out.
template <class Stream>
bool serialize(Stream& s, SnapshotHeader& h) {
  if (!s.boolean(h.has_baseline)) return false;
  if (h.has_baseline) {
    std::uint32_t low = h.baseline_low;
    if (!s.bits(low, 16)) return false;
    h.baseline_low = static_cast<std::uint16_t>(low);
    if (!serialize_gamma(s, h.age, kMaxHistoryTicks)) return false;
  } else if (!s.bits(h.tick, 32)) {
    return false;
  }
  if (!s.boolean(h.has_body)) return false;
  if constexpr (Stream::kReading) {
    h.has_reference = h.has_reference2 = h.static_models = h.fresh_models = h.models_elsewhere = false;
  }
  if (!h.has_body) return s.align();
  if (h.has_baseline) {
    if (!s.boolean(h.has_reference)) return false;
    if (h.has_reference) {
      if (!serialize_gamma(s, h.reference_gap, kMaxHistoryTicks) || !s.boolean(h.has_reference2)) return false;
      if (h.has_reference2 && !serialize_gamma(s, h.reference2_gap, kMaxHistoryTicks)) return false;
    }
  }
  if (!s.boolean(h.static_models)) return false;
  if (!h.static_models && h.has_baseline) {
    // One bit for the usual case, the baseline's models; otherwise a code:
    // 1 for fresh models, else 1 + the gap to the state whose models.
    bool other = h.fresh_models || h.models_elsewhere;
    if constexpr (!Stream::kReading) {
      if (h.models_elsewhere && (h.fresh_models || h.models_gap < 1 || h.models_gap > kMaxHistoryTicks)) {
        return s.fail(ErrorCode::kOutOfRange, "models gap outside [1, 4096], or with fresh models");
      }
    }
    if (!s.boolean(other)) return false;
    if (other) {
      std::uint32_t code = h.fresh_models ? 1 : h.models_gap + 1;
      if (!serialize_gamma(s, code, kMaxHistoryTicks + 1)) return false;
      if constexpr (Stream::kReading) {
        h.fresh_models = code == 1;
        h.models_elsewhere = code > 1;
        h.models_gap = code - 1;
      }
    }
  }
  return s.align();
}

}  // namespace tickwire::snapshot
