#pragma once
// The view time travelling with an input: at which interpolation time (a
// tick plus a fraction) the client drew remote entities when it sampled
// the input of tick T. It is coded as how far it lies behind T, which
// stays nearly constant from input to input (the client's lead plus its
// interpolation delay), in steps of 1/250 of a tick: 4000 NetworkTime
// units, so converting is exact, and 67 us at 60 Hz (a player running at
// 10 m/s moves under a millimetre in one step).
//
// Wire format (docs/wire-format.md, "View time"):
//   one claim          16 bits   offset in steps, 0..65535 (262 ticks)
//   a run of claims,   first: 16 bits; each later one:
//   one per input        0        same offset as the one before
//                        10 + 5   offset changed by -16..15 steps
//                        11 + 16  the offset in full
// While the client's timelines run steadily a later claim costs one bit,
// so repeating old inputs for redundancy stays nearly free.
//
// It lives in core, beside the other small wire types, because the input
// packet (prediction) carries it and lag compensation (lagcomp) reads it.
//
// Receiver obligations (tests in tests/lagcomp/view_claim_adversarial_test.cpp):
//   1. Reject every truncation (RejectsEveryTruncatedClaimRun).
//   2. Reject a change that leaves 0..65535 (RejectsOffsetsOutsideTheirRange).
//   3. Reject a claim whose view time lies before tick zero
//      (RejectsViewTimesBeforeTickZero).
//   4. Never use a claim as it stands: it goes through lagcomp's RewindPolicy, which
//      replaces one too far from the server's estimate and clamps into the
//      history (ClaimsPassTheRewindPolicyBeforeUse).
//   5. Survive random bytes (RandomClaimBytesNeverCrash).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"

namespace tickwire {

inline constexpr std::int64_t kViewStepsPerTick = 250;
inline constexpr std::int64_t kUnitsPerViewStep = NetworkTime::kUnitsPerTick / kViewStepsPerTick;
inline constexpr std::uint32_t kMaxViewOffset = 65535;
// Changes coded in 5 bits: -16..15 steps.
inline constexpr std::int64_t kSmallChangeMin = -16;
inline constexpr std::int64_t kSmallChangeMax = 15;

struct ViewClaim {
  std::uint32_t offset = 0;  // input tick minus view time, in steps, 0..kMaxViewOffset
  bool operator==(const ViewClaim&) const = default;
};

// The claim for the input of tick `input_tick`, sampled while remote
// entities were drawn at `view`: rounded to the nearest step, and
// saturated into 0..kMaxViewOffset (a view after the input's tick is
// claimed as 0; one further back than the code reaches, as the furthest)
// and to tick zero (a view before it, as tick zero).
ViewClaim make_view_claim(Tick input_tick, const NetworkTime& view);

// The view time a claim states for the input of tick `input_tick`, or
// nullopt when it lies before tick zero. Tick rate as NetworkTime wants.
std::optional<NetworkTime> claimed_view_time(Tick input_tick, ViewClaim claim, std::uint32_t tick_rate);

// One claim on its own.
template <class Stream>
bool serialize(Stream& s, ViewClaim& claim) {
  return s.integer(claim.offset, std::uint32_t{0}, kMaxViewOffset);
}

// The claims of `count` consecutive inputs, oldest first, the first for
// tick `first_tick`. Writing needs claims.size() == count (else
// kInvalidArgument); reading fills `claims` with `count` entries, checking
// every offset's range and that no view time lies before tick zero.
template <class Stream>
bool serialize_view_claims(Stream& s, std::vector<ViewClaim>& claims, Tick first_tick, std::size_t count) {
  if constexpr (Stream::kReading) {
    claims.assign(count, ViewClaim{});
  } else if (claims.size() != count) {
    return s.fail(ErrorCode::kInvalidArgument, "one view claim per input");
  }
  for (std::size_t i = 0; i < count; ++i) {
    ViewClaim& c = claims[i];
    if (i == 0) {
      if (!serialize(s, c)) return false;
    } else {
      const std::int64_t prev = claims[i - 1].offset;
      std::int64_t change = 0;
      bool changed = false;
      bool full = false;
      if constexpr (!Stream::kReading) {
        change = static_cast<std::int64_t>(c.offset) - prev;
        changed = change != 0;
        full = change < kSmallChangeMin || change > kSmallChangeMax;
      }
      if (!s.boolean(changed)) return false;
      if (changed) {
        if (!s.boolean(full)) return false;
        if (full) {
          if (!serialize(s, c)) return false;
        } else {
          if (!s.integer(change, kSmallChangeMin, kSmallChangeMax)) return false;
          if constexpr (Stream::kReading) {
            const std::int64_t v = prev + change;
            if (v < 0 || v > kMaxViewOffset) return s.fail(ErrorCode::kOutOfRange, "view offset outside 0..65535");
            c.offset = static_cast<std::uint32_t>(v);
          }
        }
      } else if constexpr (Stream::kReading) {
        c.offset = claims[i - 1].offset;
      }
    }
    if constexpr (Stream::kReading) {
      // The view time must not precede tick zero: offset <= tick * steps.
      const auto tick = static_cast<std::int64_t>(first_tick.value()) + static_cast<std::int64_t>(i);
      if (static_cast<std::int64_t>(c.offset) > tick * kViewStepsPerTick) {
        return s.fail(ErrorCode::kOutOfRange, "view time before tick zero");
      }
    }
  }
  return true;
}

}  // namespace tickwire
