#pragma once
// The time system's part of a snapshot: when the server sent it (tick and
// fraction of its timeline) and, for the client it is addressed to, how its
// inputs have been arriving. Wire format and receiver obligations:
// docs/time.md ("On the wire").
//
// The round trip itself rides in the packet header (send time and echo,
// core/packet_header.h); this block only adds what the header cannot know.

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

// How one client's inputs have been arriving, as its server sees them.
struct InputFeedback {
  // The smallest arrival margin among the inputs whose first copy arrived
  // since the previous report: the tick the server consumes the input at,
  // minus the server time it arrived, in 1/256 tick. Negative when it came
  // too late. Empty when no new input arrived since the previous report.
  struct Lead {
    Tick input_tick;
    std::int32_t units = 0;  // [-kMaxLeadUnits, kMaxLeadUnits]
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

// The feedback's input tick is coded against `reference` (the snapshot's
// tick) and must land inside the range of Tick.
template <class Stream>
bool serialize_feedback(Stream& s, InputFeedback& f, Tick reference) {
  bool has_lead = f.lead.has_value();
  if (!s.boolean(has_lead)) return false;
  if (has_lead) {
    std::int32_t offset = 0;
    std::int32_t units = 0;
    if constexpr (!Stream::kReading) {
      offset = static_cast<std::int32_t>(f.lead->input_tick - reference);
      units = f.lead->units;
    }
    if (!s.integer(offset, -kMaxFeedbackTickOffset, kMaxFeedbackTickOffset)) return false;
    if (!s.integer(units, -kMaxLeadUnits, kMaxLeadUnits)) return false;
    if constexpr (Stream::kReading) {
      const std::int64_t tick = static_cast<std::int64_t>(reference.value()) + offset;
      if (tick < 0 || tick > static_cast<std::int64_t>(UINT32_MAX)) {
        return s.fail(ErrorCode::kOutOfRange, "feedback input tick outside the range of Tick");
      }
      f.lead = InputFeedback::Lead{Tick(static_cast<Tick::Rep>(tick)), units};
    }
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
