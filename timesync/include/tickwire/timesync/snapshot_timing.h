#pragma once
// The time system's part of a snapshot: when the server sent it (tick and
// fraction of its timeline) and, for the client it is addressed to, how its
// inputs have been arriving. Wire format and receiver obligations:
// docs/time.md ("On the wire").
//
// The round trip itself rides in the packet header (send time and echo,
// core/packet_header.h); this block only adds what the header cannot know.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/network_time.h"
#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"

namespace tickwire::timesync {

// The server's timeline at the moment it sent the snapshot.
struct SnapshotTiming {
  Tick server_tick;
  std::int64_t fraction_units = 0;  // [0, NetworkTime::kUnitsPerTick)

  static SnapshotTiming from(const NetworkTime& t) { return {t.tick(), t.fraction_units()}; }
  NetworkTime at(std::uint32_t tick_rate) const {
    return NetworkTime::from_tick(tick_rate, server_tick, fraction_units);
  }
  bool operator==(const SnapshotTiming&) const = default;
};

// Lead is sent in 1/256 tick: 65 us at 60 Hz, finer than any frame, in 16
// bits. The range, +-128 ticks (2.1 s at 60 Hz), is far beyond any lead a
// client should hold; the server saturates rather than wraps.
inline constexpr std::int32_t kLeadUnitsPerTick = 256;
inline constexpr std::int32_t kMaxLeadUnits = 32767;
// The input a lead refers to is sent as an offset from the snapshot's tick;
// 4095 ticks (68 s at 60 Hz) covers any input the server still tracks.
inline constexpr std::int32_t kMaxFeedbackTickOffset = 4095;
// Inputs a report can count. At 60 Hz ticks and 30 Hz snapshots a report
// covers about 2; 4095 covers a report per second at any tick rate the
// server accepts. The server saturates rather than wraps.
inline constexpr std::uint16_t kMaxFeedbackInputs = 4095;
// A report of up to 4 inputs lists every margin; of more (a burst after a
// stall), only the worst and the best. At 60 Hz inputs and 30 Hz snapshots
// a report covers 2 on average and 3 whenever jitter moves an arrival
// across a send, so 4 leaves room for a lost packet's redundant copy too.
inline constexpr std::uint16_t kMaxListedInputs = 4;
// The wire codes small counts and spreads in few bits and the rest in a
// wider field (serialize_feedback): up to 4 inputs in 2 bits, spreads up to
// 1023 units (4 ticks, far more than a link's jitter) in 10.
inline constexpr std::uint16_t kMaxSmallFeedbackInputs = 4;
inline constexpr std::int32_t kMaxSmallSpreadUnits = 1023;

// How one client's inputs have been arriving, as its server sees them.
struct InputFeedback {
  // The inputs whose first copy arrived since the previous report. Their
  // margin is the tick the server consumes the input at, minus the server
  // time it arrived, in 1/256 tick; negative when it came too late. Empty
  // when no new input arrived since the previous report.
  struct Lead {
    // The input with the smallest margin (the worst arrival), and that
    // margin: what the time controller steers by.
    Tick input_tick;
    std::int32_t units = 0;  // [-kMaxLeadUnits, kMaxLeadUnits]
    // How many inputs the report covers, [1, kMaxFeedbackInputs].
    std::uint16_t inputs = 1;
    // The other margins, each as its distance above the worst, in
    // [0, kMaxLeadUnits - units], in no particular order: of a report of up
    // to kMaxListedInputs inputs, every one (inputs - 1 of them); of a
    // larger one, only the best's (one). The entries past those are 0.
    std::array<std::int32_t, kMaxListedInputs - 1> spreads{};
    // The spreads the wire carries for this count.
    std::size_t spread_count() const {
      return inputs <= kMaxListedInputs ? static_cast<std::size_t>(inputs > 0 ? inputs - 1 : 0) : 1;
    }
    // The largest margin: the best arrival.
    std::int32_t best_units() const {
      std::int32_t best = 0;
      for (std::size_t i = 0; i < spread_count() && i < spreads.size(); ++i) best = std::max(best, spreads[i]);
      return units + best;
    }
    bool operator==(const Lead&) const = default;
  };
  std::optional<Lead> lead;
  // Running totals, modulo 2^16: ticks the server consumed without this
  // client's input ("missed"), and of those, inputs that arrived afterwards
  // ("late"). Totals rather than counts since the last report, so a lost
  // snapshot loses no count: the client takes differences.
  std::uint16_t missed_total = 0;
  std::uint16_t late_total = 0;

  bool operator==(const InputFeedback&) const = default;
};

struct SnapshotTimeBlock {
  SnapshotTiming timing;
  std::optional<InputFeedback> feedback;  // empty until the client sent inputs
  bool operator==(const SnapshotTimeBlock&) const = default;
};

template <class Stream>
bool serialize(Stream& s, SnapshotTiming& t) {
  std::uint32_t tick = t.server_tick.value();
  if (!s.bits(tick, 32)) return false;
  if (!s.integer(t.fraction_units, std::int64_t{0}, NetworkTime::kUnitsPerTick - 1)) return false;
  if constexpr (Stream::kReading) t.server_tick = Tick(tick);
  return true;
}

namespace detail {

// A value that is usually small: a flag, then the value in [min, small_max]
// or in [small_max + 1, max], each field range-checked on reading.
template <class Stream, class T>
bool serialize_tiered(Stream& s, T& value, T min, T small_max, T max) {
  bool large = value > small_max;
  if (!s.boolean(large)) return false;
  return large ? s.integer(value, static_cast<T>(small_max + 1), max) : s.integer(value, min, small_max);
}

// The count of a report's inputs and the spreads of the other margins
// above the worst. The writer refuses what the reader would have to reject.
template <class Stream>
bool serialize_arrivals(Stream& s, InputFeedback::Lead& lead) {
  if (!serialize_tiered(s, lead.inputs, std::uint16_t{1}, kMaxSmallFeedbackInputs, kMaxFeedbackInputs)) {
    return false;
  }
  const std::size_t count = lead.spread_count();
  for (std::size_t i = 0; i < lead.spreads.size(); ++i) {
    std::int32_t& spread = lead.spreads[i];
    if (i >= count) {
      if constexpr (Stream::kReading) {
        spread = 0;
      } else if (spread != 0) {
        return s.fail(ErrorCode::kInvalidArgument, "feedback spread beyond the report's inputs");
      }
      continue;
    }
    if constexpr (!Stream::kReading) {
      if (spread < 0 || spread > kMaxLeadUnits - lead.units) {
        return s.fail(ErrorCode::kInvalidArgument, "feedback margin below the worst or above the lead's range");
      }
    }
    if (!serialize_tiered(s, spread, std::int32_t{0}, kMaxSmallSpreadUnits, 2 * kMaxLeadUnits)) return false;
    // A spread is non-negative by its code, so no margin is below the
    // worst; each must also stay within the margin's range.
    if constexpr (Stream::kReading) {
      if (spread > kMaxLeadUnits - lead.units) {
        return s.fail(ErrorCode::kOutOfRange, "feedback margin outside the lead's range");
      }
    }
  }
  return true;
}

}  // namespace detail

// The feedback's input tick is coded against `reference` (the snapshot's
// tick) and must land inside the range of Tick.
template <class Stream>
bool serialize_feedback(Stream& s, InputFeedback& f, Tick reference) {
  bool has_lead = f.lead.has_value();
  if (!s.boolean(has_lead)) return false;
  if (has_lead) {
    std::int32_t offset = 0;
    InputFeedback::Lead lead;
    if constexpr (!Stream::kReading) {
      offset = static_cast<std::int32_t>(f.lead->input_tick - reference);
      lead = *f.lead;
    }
    if (!s.integer(offset, -kMaxFeedbackTickOffset, kMaxFeedbackTickOffset)) return false;
    if (!s.integer(lead.units, -kMaxLeadUnits, kMaxLeadUnits)) return false;
    if constexpr (Stream::kReading) {
      const std::int64_t tick = static_cast<std::int64_t>(reference.value()) + offset;
      if (tick < 0 || tick > static_cast<std::int64_t>(UINT32_MAX)) {
        return s.fail(ErrorCode::kOutOfRange, "feedback input tick outside the range of Tick");
      }
      lead.input_tick = Tick(static_cast<Tick::Rep>(tick));
    }
    if (!detail::serialize_arrivals(s, lead)) return false;
    if constexpr (Stream::kReading) f.lead = lead;
  } else if constexpr (Stream::kReading) {
    f.lead.reset();
  }
  return s.integer(f.missed_total, std::uint16_t{0}, std::uint16_t{0xFFFF}) &&
         s.integer(f.late_total, std::uint16_t{0}, std::uint16_t{0xFFFF});
}

template <class Stream>
bool serialize(Stream& s, SnapshotTimeBlock& b) {
  bool has_feedback = b.feedback.has_value();
  if (!serialize(s, b.timing) || !s.boolean(has_feedback)) return false;
  if constexpr (Stream::kReading) {
    if (has_feedback) {
      b.feedback.emplace();
    } else {
      b.feedback.reset();
    }
  }
  return !has_feedback || serialize_feedback(s, *b.feedback, b.timing.server_tick);
}

}  // namespace tickwire::timesync
