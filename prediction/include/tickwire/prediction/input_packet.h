#pragma once
// The body of an input packet (client -> server, unreliable, after the
// core PacketHeader of type kInput, which carries the sequence, the acks and
// the timestamps the time system feeds on).
//
// Wire format, in order:
//   first tick      32 bits   tick of the oldest input in the packet
//   count - 1        6 bits   1..64 inputs, for consecutive ticks
//   has ack          1 bit
//   ack offset      varint    signed, zigzag: first tick - newest snapshot
//                             tick the client holds (when has ack)
//   input 0                   every component code of the input type in its
//                             declared bits (fields of one value take none)
//   input i > 0     1 bit     changed from input i - 1?
//                             if changed, per component: 1 bit changed, then
//                             the code in its declared bits when changed
//   has views        1 bit
//   view claims               when has views: one per input, the run coding
//                             of core/view_claim.h (first 16 bits, then 1 bit
//                             while the view time keeps its distance)
// An unchanged input costs one bit, so carrying the previous inputs again
// for redundancy is nearly free while the player holds still; so does the
// view time that rides with each input for lag compensation.
//
// Receiver obligations (tests in tests/prediction/input_packet_adversarial_test.cpp):
//   1. Reject every truncation (RejectsEveryTruncation).
//   2. Reject trailing bytes (RejectsTrailingBytes).
//   3. Reject codes outside a field's range (RejectsOutOfRangeInputCodes):
//      nothing outside the declared ranges, and so no NaN or infinity, ever
//      becomes an input.
//   4. Reject tick arithmetic that leaves the range of Tick: a first tick
//      whose last input or ack would pass 2^32 - 1 or go below zero
//      (RejectsTicksPastTheEndOfTime).
//   5. Survive random bytes (RandomBytesNeverCrash).
//   6. Reject view claims outside their range or before tick zero, and
//      every truncation of them (RejectsBadViewClaims); the claims' own
//      obligations are in core/view_claim.h.
// What the server then does with the ticks (window, duplicates, late
// inputs) is the InputQueue's part; see input_queue.h.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/view_claim.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

inline constexpr std::size_t kMaxInputsPerPacket = 64;

struct InputPacket {
  Tick first_tick;
  std::vector<snapshot::Record> inputs;  // ticks first_tick, first_tick + 1, ...; oldest first
  // The newest snapshot tick the client holds, for the server's baseline
  // choice. A receiver must ignore an ack newer than anything it sent.
  std::optional<Tick> snapshot_ack;
  // Empty, or one per input: the interpolation time at which the client
  // drew remote entities when it sampled that input (lag compensation;
  // a claim the server checks, never trusts).
  std::vector<ViewClaim> view_claims;

  // Tick of the newest input; requires at least one input.
  Tick last_tick() const { return first_tick + static_cast<std::int64_t>(inputs.size()) - 1; }
};

namespace detail {
// Tick arithmetic on hostile values without Tick's throwing checks.
inline bool tick_in_range(std::int64_t v) {
  return v >= 0 && v <= static_cast<std::int64_t>(std::numeric_limits<Tick::Rep>::max());
}
}  // namespace detail

// Writes, reads or measures a packet body whose inputs are records of
// `input_type` in `schema`. Writing fails with kInvalidArgument for no
// inputs, more than kMaxInputsPerPacket, a record of another type, or view
// claims that are neither none nor one per input.
template <class Stream>
bool serialize_input_packet(Stream& s, InputPacket& p, const snapshot::Schema& schema, snapshot::TypeId input_type) {
  if (!schema.has_type(input_type)) return s.fail(ErrorCode::kInvalidArgument, "unknown input type");
  const snapshot::TypeSpec& spec = schema.type(input_type);
  const std::size_t stride = spec.stride();

  std::uint32_t first = p.first_tick.value();
  std::uint32_t count_minus_one = 0;
  bool has_ack = p.snapshot_ack.has_value();
  std::int64_t ack_offset = 0;
  if constexpr (!Stream::kReading) {
    if (p.inputs.empty() || p.inputs.size() > kMaxInputsPerPacket) {
      return s.fail(ErrorCode::kInvalidArgument, "an input packet holds 1 to 64 inputs");
    }
    count_minus_one = static_cast<std::uint32_t>(p.inputs.size() - 1);
    if (has_ack) ack_offset = p.first_tick - *p.snapshot_ack;
  }
  if (!s.bits(first, 32) || !s.bits(count_minus_one, 6) || !s.boolean(has_ack)) return false;
  if (has_ack && !s.varint_signed(ack_offset)) return false;
  if constexpr (Stream::kReading) {
    const auto first64 = static_cast<std::int64_t>(first);
    if (!detail::tick_in_range(first64 + static_cast<std::int64_t>(count_minus_one))) {
      return s.fail(ErrorCode::kOutOfRange, "input ticks past the range of Tick");
    }
    // ack_offset comes from a varint: bound it before subtracting.
    if (has_ack && (ack_offset > first64 ||
                    ack_offset < first64 - static_cast<std::int64_t>(std::numeric_limits<Tick::Rep>::max()))) {
      return s.fail(ErrorCode::kOutOfRange, "snapshot ack outside the range of Tick");
    }
    p.first_tick = Tick(first);
    p.snapshot_ack = has_ack ? std::optional<Tick>(Tick(static_cast<Tick::Rep>(first64 - ack_offset))) : std::nullopt;
    // A packet object read into again keeps its records: a receiver that
    // reads every packet into one object allocates nothing once warm.
    if (p.inputs.size() > count_minus_one + 1U) {
      p.inputs.erase(p.inputs.begin() + static_cast<std::ptrdiff_t>(count_minus_one) + 1, p.inputs.end());
    }
    p.inputs.reserve(count_minus_one + 1U);
  }

  // Two rows of codes; on the stack for the usual small input records, so
  // a packet a tick allocates nothing here.
  constexpr std::size_t kInlineStride = 32;
  std::array<std::uint32_t, 2 * kInlineStride> inline_rows{};
  std::vector<std::uint32_t> heap_rows;
  std::uint32_t* rows = inline_rows.data();
  if (stride > kInlineStride) {
    heap_rows.assign(2 * stride, 0);
    rows = heap_rows.data();
  }
  std::span<std::uint32_t> prev(rows, stride);
  std::span<std::uint32_t> cur(rows + stride, stride);
  for (std::size_t i = 0; i <= count_minus_one; ++i) {
    if constexpr (!Stream::kReading) {
      if (p.inputs[i].type() != input_type) return s.fail(ErrorCode::kInvalidArgument, "input of another type");
      p.inputs[i].to_codes(cur);
    }
    bool changed = true;
    if (i > 0) {
      if constexpr (!Stream::kReading) changed = !std::equal(cur.begin(), cur.end(), prev.begin());
      if (!s.boolean(changed)) return false;
      if constexpr (Stream::kReading) {
        if (!changed) std::copy(prev.begin(), prev.end(), cur.begin());
      }
    }
    if (changed) {
      for (std::size_t k = 0; k < stride; ++k) {
        const int bits = spec.components[k].bits;
        if (bits == 0) continue;  // a field of one value: nothing to send
        bool field_changed = true;
        if (i > 0) {
          if constexpr (!Stream::kReading) field_changed = cur[k] != prev[k];
          if (!s.boolean(field_changed)) return false;
        }
        if (field_changed && !s.bits(cur[k], bits)) return false;
        if constexpr (Stream::kReading) {
          if (!field_changed) cur[k] = prev[k];
        }
      }
    }
    if constexpr (Stream::kReading) {
      // A kept record serves when it is of this very schema's type (the
      // schema's types are shared between its copies).
      if (i < p.inputs.size() && (p.inputs[i].type() != input_type || &p.inputs[i].spec() != &spec)) {
        p.inputs[i] = snapshot::Record(schema, input_type);
      }
      snapshot::Record& r = i < p.inputs.size() ? p.inputs[i] : p.inputs.emplace_back(schema, input_type);
      if (!r.from_codes(cur)) return s.fail(ErrorCode::kOutOfRange, "input field outside its range");
    }
    std::swap(prev, cur);
  }

  bool has_views = !p.view_claims.empty();
  if (!s.boolean(has_views)) return false;
  if (has_views) return serialize_view_claims(s, p.view_claims, p.first_tick, count_minus_one + std::size_t{1});
  if constexpr (Stream::kReading) p.view_claims.clear();
  return true;
}

// Whole-body helpers for tests and tools (a runtime serializes the body
// into the same stream as the packet header).
Result<std::vector<std::uint8_t>> encode_input_packet(const InputPacket& packet, const snapshot::Schema& schema,
                                                      snapshot::TypeId input_type, std::size_t max_bytes);
Result<InputPacket> decode_input_packet(std::span<const std::uint8_t> bytes, const snapshot::Schema& schema,
                                        snapshot::TypeId input_type);

}  // namespace tickwire::prediction
