#pragma once
// The server's queue of one client's inputs, indexed by tick. Inputs arrive
// early (the client predicts ahead), more than once (every packet repeats
// the unacknowledged ones), out of order, late, or not at all; the server
// consumes exactly one per tick, the client's own or a stand-in.
//
// A client cannot buy simulation: inputs for ticks more than
// max_ticks_ahead past the server's next tick are refused, and consume()
// hands out one input per tick whatever was claimed. Every input is checked
// against the schema before it is stored, so nothing that fails validation
// is ever simulated or relayed.
//
// Counting, with the names the time system's feedback uses: a tick
// consumed without the client's input is "missing"; an input that arrives
// after its tick was consumed without it is "late" (once per tick). A copy
// of an input the server already had when it consumed the tick is a
// duplicate, not late: redundant copies are the normal case.
//
// Receiver obligations (tests in tests/prediction/input_queue_adversarial_test.cpp):
//   refuse ticks past the window (RejectsInputsTooFarAhead,
//   FutureClaimsBuyNoSimulation); refuse NaN, infinities, out-of-range
//   values and other types (RejectsNonFiniteInputs, RejectsOutOfRangeInputs,
//   RejectsInputOfAnotherType); drop and count late inputs
//   (DropsLateInputsAndCountsThem); keep the first copy of a tick
//   (DeduplicatesRepeatedInputs); consume one input per tick
//   (ConsumesAtMostOneInputPerTick); never trust a hand-built packet's
//   ticks (PacketTicksPastTheEndOfTimeAreNotTrusted).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/core/tick_buffer.h"
#include "tickwire/core/view_claim.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/prediction/input_validation.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

// What stands in for an input that did not arrive in time.
enum class MissingInput : std::uint8_t {
  kRepeatLast,  // the client's last input: right whenever the player held still
  kNeutral,     // the input type's defaults (no movement, no buttons)
};

struct InputQueueConfig {
  // Furthest tick ahead of the server's next tick an input may claim. A
  // client's lead is half its round trip plus a margin; 64 ticks (about a
  // second at 60 Hz) covers any playable link.
  std::uint32_t max_ticks_ahead = 64;
  MissingInput missing = MissingInput::kRepeatLast;
  // Consumed ticks remembered to tell a late input from a duplicate; older
  // arrivals are dropped as stale.
  std::uint32_t remember_ticks = 128;
};

enum class InputVerdict : std::uint8_t {
  kAccepted,     // stored for its tick
  kDuplicate,    // already held or already consumed with this client's input
  kLate,         // its tick was consumed without it
  kStale,        // older than the ticks the queue remembers
  kTooFarAhead,  // beyond max_ticks_ahead
  kInvalid,      // failed validation (NaN, infinity, out of range, wrong type)
};

const char* to_string(InputVerdict verdict);

struct InputQueueStats {
  std::uint64_t accepted = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t late = 0;
  std::uint64_t stale = 0;
  std::uint64_t too_far_ahead = 0;
  std::uint64_t invalid = 0;
  std::uint64_t consumed = 0;  // ticks consumed, with or without an input
  std::uint64_t missing = 0;   // ticks consumed with a stand-in
};

struct ConsumedInput {
  const snapshot::Record* input = nullptr;  // valid until the next call on the queue
  bool fallback = false;                    // a stand-in (see MissingInput)
  // The view time the client claimed with this input (never with a
  // stand-in): already range-checked on receipt, still only its word.
  std::optional<ViewClaim> view;
};

class InputQueue {
 public:
  // Throws std::invalid_argument for an unknown input type or zero sizes.
  InputQueue(snapshot::Schema schema, snapshot::TypeId input_type, InputQueueConfig config = {});

  // One input for `tick`. `next_tick` is the next tick the server will
  // simulate (its current tick if it has not simulated it yet).
  InputVerdict receive(Tick tick, const snapshot::Record& input, Tick next_tick,
                       std::optional<ViewClaim> view = std::nullopt);
  // Every input of a decoded packet, with its view claim if the packet
  // has them; returns how many were accepted.
  std::size_t receive(const InputPacket& packet, Tick next_tick);

  // The input for `tick`, or the stand-in. Ticks must be consumed in
  // increasing order (a tick consumed twice throws std::invalid_argument:
  // the server would be simulating a tick twice).
  ConsumedInput consume(Tick tick);

  std::optional<Tick> last_consumed() const { return last_consumed_; }
  std::optional<Tick> newest_received() const { return newest_received_; }
  // Inputs held for ticks after the last consumed one.
  std::size_t pending() const;
  const InputQueueStats& stats() const { return stats_; }
  const InputQueueConfig& config() const { return config_; }

 private:
  // What the queue knows about a consumed tick.
  enum class Consumed : std::uint8_t { kWithInput, kMissing, kMissingThenLate };

  snapshot::Schema schema_;
  snapshot::TypeId input_type_;
  InputQueueConfig config_;
  // An input waiting for its tick: slot i of a ring of max_ticks_ahead + 1
  // (every tick the queue accepts has a slot of its own), with its values
  // at i x stride in pending_values_. Flat, rather than a Record with an
  // allocation of its own per slot: that was most of a client's input
  // memory on a server.
  struct Pending {
    Tick tick;
    bool held = false;
    bool has_view = false;
    ViewClaim view;
  };
  Pending* find_pending(Tick tick);
  const Pending* find_pending(Tick tick) const;
  std::span<std::uint32_t> values_of(const Pending& slot);

  std::vector<Pending> pending_;
  std::vector<std::uint32_t> pending_values_;
  TickBuffer<Consumed> consumed_;
  snapshot::Record last_;
  snapshot::Record neutral_;
  std::optional<Tick> last_consumed_;
  std::optional<Tick> first_consumed_;
  std::optional<Tick> newest_received_;
  InputQueueStats stats_;
};

}  // namespace tickwire::prediction
